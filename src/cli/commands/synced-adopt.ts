import type { CommandDeps } from '../../context/command-deps.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { adoptedSchedulesInput } from '../../pipeline/schedule-input.js';
import { adoptChecked, adoptSchedules, adoptUserFiles, type TellAdoption } from '../../sync/adopted-file.js';
import { counted, formatCount } from '../../formats/number-format.js';
import { printLine, say } from '../../formats/terminal-text.js';
import { describeTarget, problemWords } from '../../report/report-writers.js';
import { printJson } from '../../context/command-deps.js';
import { hierarchyEntryCell } from '../../domain/coercion.js';
import { countedKind, type MemoryEntry } from '../../sync/memory-lines.js';
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
    tellTo(deps),
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
  return adoptSchedules({ ...input, file: rest.file }, { ...options, syncDir }, deps, target, tellTo(deps));
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
  return adoptChecked('collections', adopted, { ...options, syncDir }, deps, target, tellTo(deps));
}

/** How many refused rows are named on stderr (all of them are in --json). */
const NAMED_REFUSALS = 20;

/** What `synced adopt` says of a file adopted: --json's document, a dry run's rows, the rows refused, the line. */
const tellTo =
  (deps: CommandDeps): TellAdoption =>
  async (kind, input, adoption, where) => {
    const replaced = adoption.adopted.filter((row) => row.before !== undefined).length;
    const fresh = adoption.adopted.length - replaced;
    if (where.json) {
      const document = {
        target: where.target,
        memory: where.memory,
        file: input.file,
        kind,
        population: input.population ?? null,
        dryRun: where.dryRun,
        run: adoption.run,
        adopted: adoption.adopted.length,
        new: fresh,
        replaced,
        notAdopted: adoption.refused.map((row) => ({ source: row.source, id: row.id, errors: row.problems })),
        ...(where.dryRun
          ? {
              records: adoption.adopted.map((row) => ({
                source: row.source,
                id: row.id,
                action: row.before === undefined ? 'new' : 'replaced',
                ...entryWords(row.entry),
              })),
            }
          : {}),
      };
      await printJson(deps, document);
    } else if (where.dryRun) {
      for (const row of adoption.adopted) {
        const { links, population } = entryWords(row.entry);
        const what = [
          row.before === undefined ? 'new' : `replaces the entry of run ${row.before.run}`,
          population === undefined ? undefined : `--population ${population}`,
          links.length === 0 ? undefined : `links ${links.join(', ')}`,
        ];
        await printLine(deps, `${row.id} (${what.filter((word) => word !== undefined).join('; ')})`);
      }
    }
    for (const row of adoption.refused.slice(0, NAMED_REFUSALS)) {
      const problems = row.problems.map(problemWords).join('; ');
      await say(
        deps,
        `${row.source.file}:${row.source.line}${row.id === null ? '' : ` [${row.id}]`}: not adopted: ${problems}`,
      );
    }
    const n = formatCount;
    const more =
      adoption.refused.length > NAMED_REFUSALS
        ? ` (the first ${NAMED_REFUSALS} above; --json lists every one)`
        : adoption.refused.length > 0
          ? ' (above)'
          : '';
    const refused =
      adoption.refused.length === 0
        ? ''
        : `; ${counted(adoption.refused.length, 'row was', 'rows were')} not adopted${more}: ${adoption.refused.length === 1 ? 'it goes' : 'they go'} the next night`;
    const as =
      input.population === undefined
        ? kind === 'users'
          ? ' for the runs without --population'
          : ''
        : ` as --population ${input.population}`;
    await say(
      deps,
      `${where.dryRun ? 'would adopt' : 'adopted'} ${countedKind(adoption.adopted.length, kind)} of ${input.file} into the sync memory of ${describeTarget(where.target)}${as} ` +
        `(run ${adoption.run}: ${n(fresh)} new, ${n(replaced)} replaced)${refused}${where.dryRun ? '; nothing was written (--dry-run)' : ''}`,
    );
  };

/** An entry's links as CSV cell words (`H-A:coordinator+reports`) and its population, for the plan. */
function entryWords(entry: MemoryEntry): { links: string[]; population?: string } {
  const links = (entry.links ?? []).map(([id, flags]) => hierarchyEntryCell(id, flags));
  return entry.population === undefined ? { links } : { links, population: entry.population };
}
