import type { CommandDeps } from '../../context/command-deps.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { adoptedSchedulesInput } from '../../pipeline/schedule-input.js';
import { adoptChecked, adoptSchedules, adoptUserFiles } from '../../sync/adopted-file.js';
import { collectionsOnStore } from '../../sync/adopt-sittings.js';
import { populationOf } from '../../sync/user-sync-memory.js';
import { userSyncInput, userUnit } from './user-sync.js';
import { collectionAddInput } from './collection-add.js';
import { WHOLE_FILE_OPTIONS } from './file-options.js';
import type {
  SyncedAdoptCollectionsOptions,
  SyncedAdoptOptions,
  SyncedAdoptSchedulesOptions,
} from './synced.options.js';

/**
 * `synced adopt --file FILE [--population NAME]` (docs/sync.md, "When the memory is lost"): the valid rows
 * recorded as a real run would have, under the memory's lock; a dry run only reads the memory (sync/adopted-file.ts).
 */
export async function runAdopt(all: SyncedAdoptOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const [input, { file: files, tentative, population, syncDir, ...globals }] = takeTableFlags(all, WHOLE_FILE_OPTIONS);
  return adoptUserFiles(
    files ?? [],
    (file) => userSyncInput({ file, ...input, ...globals }, deps).records,
    userUnit,
    { population: populationOf(population), tentative: tentative === true },
    { ...onlyGlobals(globals), syncDir },
    deps,
    target,
  );
}

/** `synced adopt-schedules` (docs/sync.md, "When the memory is lost"): the requests as `schedule push` builds them. */
export async function runAdoptSchedules(
  { syncDir, ...rest }: SyncedAdoptSchedulesOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  // Its own flags are schedule push's input; the rest are the global ones.
  const options: GlobalOptions = rest;
  const input = await adoptedSchedulesInput(rest as Parameters<typeof adoptedSchedulesInput>[0], deps);
  return adoptSchedules({ ...input, file: rest.file }, { ...options, syncDir }, deps, target);
}

/** `synced adopt-collections`: the way back for a collection whose request was cut short, checked on the platform. */
export async function runAdoptCollections(
  all: SyncedAdoptCollectionsOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const [flags, { file, syncDir, ...globals }] = takeTableFlags(all, WHOLE_FILE_OPTIONS);
  const options = onlyGlobals(globals);
  const input = await collectionAddInput({ file, ...flags, ...globals }, options, deps);
  const adopted = { ...input, file, entryOf: collectionsOnStore };
  return adoptChecked('collections', adopted, { ...options, syncDir }, deps, target);
}
