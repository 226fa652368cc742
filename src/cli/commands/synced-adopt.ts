import { counted, formatCount } from '../../formats/number-format.js';
import { printLine, say } from '../../formats/terminal-text.js';
import { describeTarget, FEEDING_COMMAND, problemWords } from '../../report/report-writers.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { typedPin } from '../../context/pin-source.js';
import { onlyGlobals, type GlobalOptions } from '../../flags/global-options.js';
import { USER_ID_RULE } from '../../domain/one-id-per-file.js';
import { isGiven } from '../../domain/field-rules.js';
import { hierarchyEntryCell } from '../../domain/coercion.js';
import { unitPerRecord, type RecordJob } from '../../pipeline/record-job.js';
import { RecordSource } from '../../pipeline/record-source.js';
import { inputPathOf } from '../../pipeline/command-input.js';
import { fileDigest } from '../../sync/replayed-file.js';
import { refuseOthersMemoryFile } from '../../context/loose-permissions.js';
import { adoptFile, userAdoption, type Adoption, type AdoptInput } from '../../sync/adopt.js';
import { populationOf } from '../../sync/user-sync-memory.js';
import { countedKind, type MemoryEntry, type SyncKind } from '../../sync/memory-lines.js';
import { userSyncInput, userUnit } from './user-sync.js';
import { refuseWithheldPins } from '../../input/withheld-pins.js';
import { schedulePushInput } from '../../pipeline/schedule-input.js';
import type {
  SyncedAdoptCollectionsOptions,
  SyncedAdoptOptions,
  SyncedAdoptSchedulesOptions,
} from './synced.options.js';
import { collectionAddInput } from './collection-add.js';
import { WHOLE_FILE_OPTIONS } from './file-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { collectionsOnStore, sittingsOnStore, usersOnStore } from '../../sync/adopt-sittings.js';
import type { LocalDirectory } from '../../port/local-directory.js';
import type { PreparedSchedule } from '../../domain/sittings.js';
import { openTargetDirectory } from '../../context/target.js';

/**
 * `synced adopt --file FILE [--population NAME]` (docs/sync.md, "When the memory is lost"): the valid rows
 * recorded as a real run would have, under the memory's lock; a dry run only reads the memory.
 */
export async function runAdopt(all: SyncedAdoptOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const [input, { file: files, tentative, population: given, syncDir, ...globals }] = takeTableFlags(
    all,
    WHOLE_FILE_OPTIONS,
  );
  const options = onlyGlobals(globals);
  const population = populationOf(given);
  let code = 0;
  // The missed nights' files in order: each adopted as its night left the memory, the next on top of it.
  for (const [index, file] of (files ?? []).entries()) {
    const { records } = userSyncInput({ file, ...input, ...globals }, deps);
    const adoption = await userAdoption(userUnit, population, tentative === true);
    const { units } = unitPerRecord(adoption.unitOf, USER_ID_RULE);
    // The last file's rows are what the store must hold now; an earlier night's a later one may have changed since.
    const compare = tentative !== true && index === (files ?? []).length - 1;
    const entryOf = (directory: LocalDirectory | null) => usersOnStore(adoption.entryOf, directory, compare);
    code = Math.max(
      code,
      await adopt('users', { file, population, records, units, entryOf }, { ...options, syncDir }, deps, target),
    );
  }
  return code;
}

/** `synced adopt-schedules` (docs/sync.md, "When the memory is lost"): the requests as `schedule push` builds them. */
export async function runAdoptSchedules(
  { syncDir, pin, pinFile, ...rest }: SyncedAdoptSchedulesOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  // Its own flags are schedule push's input; the rest are the global ones.
  const options: GlobalOptions = rest;
  const { pin: given, pinField } = await typedPin({ pin, pinFile }, deps);
  const input = await schedulePushInput({ ...rest, pin: pinField } as Parameters<typeof schedulePushInput>[0], deps);
  // As schedule push takes it: the --schedule file's PIN beats EXAMCTL_PIN, a typed one beats the file's.
  if (!isGiven(input.defaults.schedule.PIN) && given !== undefined) input.defaults.schedule.PIN = given;
  // A report's withheld PIN cells need the PIN that was pushed (--pin-file, EXAMCTL_PIN): never asked here.
  if (!isGiven(input.defaults.schedule.PIN)) await refuseWithheldPins(input.records(), false);
  // A request no Upsert names (no --upsert, none in the file) is not the one a --changed-only night sends.
  let withoutUpsert = 0;
  const entryOf = (directory: LocalDirectory | null): AdoptInput<PreparedSchedule>['entryOf'] => {
    const onStore = sittingsOnStore(directory);
    return (payload, before) => {
      const entry = onStore(payload, before);
      if (!('message' in entry) && payload.request.Upsert === undefined) withoutUpsert += 1;
      return entry;
    };
  };
  const code = await adopt('schedules', { ...input, file: rest.file, entryOf }, { ...options, syncDir }, deps, target);
  if (withoutUpsert > 0)
    await say(
      deps,
      `note: ${countedKind(withoutUpsert, 'schedules')} adopted without Upsert (no --upsert, and the file gives none): a schedule push --changed-only night, which takes --upsert, sends ${withoutUpsert === 1 ? 'it' : 'them'} again; adopt again with --upsert if the nightly push gives it`,
    );
  return code;
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
  return adopt('collections', { ...input, file, entryOf: collectionsOnStore }, { ...options, syncDir }, deps, target);
}

/** What the command says of the file beside what it adopts: its name, its records and how its units are made. */
interface AdoptedFile<P> extends Pick<RecordJob<P>, 'records' | 'units'> {
  file: string;
  population?: string | undefined;
  entryOf: (directory: LocalDirectory | null) => AdoptInput<P>['entryOf'];
}

/** The file's structure checked first (malformed: exit 2, the memory untouched), then adopted (src/sync/adopt.ts). */
async function adopt<P>(
  kind: SyncKind,
  input: AdoptedFile<P>,
  options: GlobalOptions & { syncDir?: string | undefined },
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  // The file becomes the memory: another user's, or one others could write or replace, is exit 2.
  if (input.file !== '-' && input.file !== deps.pipedFile)
    await refuseOthersMemoryFile('synced adopt --file', inputPathOf(input.file, deps), deps.env);
  // Read as the command that sends such a file reads it: its structure refused in that command's words.
  const source = new RecordSource(() => input.records(), false, FEEDING_COMMAND[kind]);
  await source.checkStructure();
  const resolved = await target();
  const dryRun = options.dryRun ?? false;
  const note = (message: string) => void say(deps, message);
  const directory = await (deps.openDirectory ?? openTargetDirectory)(resolved, deps);
  const { adoption, memory } = await adoptFile(
    kind,
    {
      population: input.population,
      units: input.units(source.batches()),
      entryOf: input.entryOf(directory),
      digest: await fileDigest(inputPathOf(input.file, deps)),
    },
    { target: resolved, syncDir: options.syncDir, runsDir: options.runsDir, dryRun },
    deps,
    note,
  ).finally(() => directory?.close());
  await tell(kind, input, adoption, { target: resolved.report, memory, dryRun, json: options.json ?? false }, deps);
  return adoption.refused.length > 0 ? 1 : 0;
}

/** How many refused rows are named on stderr (all of them are in --json). */
const NAMED_REFUSALS = 20;

async function tell<P>(
  kind: SyncKind,
  input: AdoptedFile<P>,
  adoption: Adoption,
  where: { target: Parameters<typeof describeTarget>[0]; memory: string; dryRun: boolean; json: boolean },
  deps: CommandDeps,
): Promise<void> {
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
}

/** An entry's links as CSV cell words (`H-A:coordinator+reports`) and its population, for the plan. */
function entryWords(entry: MemoryEntry): { links: string[]; population?: string } {
  const links = (entry.links ?? []).map(([id, flags]) => hierarchyEntryCell(id, flags));
  return entry.population === undefined ? { links } : { links, population: entry.population };
}
