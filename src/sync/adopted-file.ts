/**
 * `synced adopt`, `adopt-schedules` and `adopt-collections` over a file (docs/sync.md, "When the memory is lost"):
 * the file checked as its command reads it, then adopted (adopt.ts); the exit code.
 */
import { USER_ID_RULE } from '../domain/one-id-per-file.js';
import type { UserRequest } from '../domain/user.js';
import type { InputRecord } from '../input/record.js';
import { printLine, say } from '../formats/terminal-text.js';
import { counted, formatCount } from '../formats/number-format.js';
import { hierarchyEntryCell } from '../domain/coercion.js';
import { describeTarget, FEEDING_COMMAND, problemWords } from '../report/report-writers.js';
import type { ReportTarget } from '../report/run-report.js';
import type { LocalDirectory } from '../port/local-directory.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import { refuseOthersMemoryFile } from '../context/loose-permissions.js';
import { openTargetDirectory } from '../context/target.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { unitPerRecord, type RecordJob, type Unit } from '../pipeline/record-job.js';
import { RecordSource } from '../pipeline/record-source.js';
import { inputPathOf } from '../pipeline/command-input.js';
import { fileDigest } from './replayed-file.js';
import { adoptFile, userAdoption, type Adoption, type AdoptInput } from './adopt.js';
import { sittingsOnStore, usersOnStore } from './adopt-sittings.js';
import { countedKind, type MemoryEntry, type SyncKind } from './memory-lines.js';
import type { PreparedSchedule } from '../domain/sittings.js';

/** What the command says of the file beside what it adopts: its name, its records and how its units are made. */
export interface AdoptedFile<P> extends Pick<RecordJob<P>, 'records' | 'units'> {
  file: string;
  population?: string | undefined;
  entryOf: (directory: LocalDirectory | null) => AdoptInput<P>['entryOf'];
}

type AdoptOptions = GlobalOptions & { syncDir?: string | undefined };

/** `synced adopt --file F...`: the missed nights' files in order, each adopted as its night left the memory. */
export async function adoptUserFiles(
  files: readonly string[],
  recordsOf: (file: string) => RecordJob<UserRequest>['records'],
  build: (record: InputRecord) => Unit<UserRequest>,
  { population, tentative }: { population: string | undefined; tentative: boolean },
  options: AdoptOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  let code = 0;
  for (const [index, file] of files.entries()) {
    const adoption = await userAdoption(build, population, tentative);
    const { units } = unitPerRecord(adoption.unitOf, USER_ID_RULE);
    // The last file's rows are what the store must hold now; an earlier night's a later one may have changed since.
    const compare = !tentative && index === files.length - 1;
    const entryOf = (directory: LocalDirectory | null) => usersOnStore(adoption.entryOf, directory, compare);
    const input = { file, population, records: recordsOf(file), units, entryOf };
    code = Math.max(code, await adoptChecked('users', input, options, deps, target));
  }
  return code;
}

/**
 * `synced adopt-schedules`: the file adopted as schedule push builds its requests. One no Upsert names (no --upsert,
 * none in the file) is not the request a --changed-only night sends (it takes --upsert): said once, with what to do.
 */
export async function adoptSchedules(
  input: Omit<AdoptedFile<PreparedSchedule>, 'entryOf'>,
  options: AdoptOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  let withoutUpsert = 0;
  const entryOf = (directory: LocalDirectory | null): AdoptInput<PreparedSchedule>['entryOf'] => {
    const onStore = sittingsOnStore(directory);
    return (payload, before) => {
      const entry = onStore(payload, before);
      if (!('message' in entry) && payload.request.Upsert === undefined) withoutUpsert += 1;
      return entry;
    };
  };
  const code = await adoptChecked('schedules', { ...input, entryOf }, options, deps, target);
  if (withoutUpsert > 0)
    await say(
      deps,
      `note: ${countedKind(withoutUpsert, 'schedules')} adopted without Upsert (no --upsert, and the file gives none): a schedule push --changed-only night, which takes --upsert, sends ${withoutUpsert === 1 ? 'it' : 'them'} again; adopt again with --upsert if the nightly push gives it`,
    );
  return code;
}

/** The file's structure checked first (malformed: exit 2, the memory untouched), then adopted: 1 if a row was not. */
export async function adoptChecked<P>(
  kind: SyncKind,
  input: AdoptedFile<P>,
  options: AdoptOptions,
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
  await tellAdoption(deps, kind, input, adoption, {
    target: resolved.report,
    memory,
    dryRun,
    json: options.json ?? false,
  });
  return adoption.refused.length > 0 ? 1 : 0;
}

/** How many refused rows are named on stderr (all of them are in --json). */
const NAMED_REFUSALS = 20;

/** What `synced adopt` says of a file adopted: --json's document, a dry run's rows, the rows refused, the line. */
async function tellAdoption(
  deps: CommandDeps,
  kind: SyncKind,
  input: Pick<AdoptedFile<unknown>, 'file' | 'population'>,
  adoption: Adoption,
  where: { target: ReportTarget; memory: string; dryRun: boolean; json: boolean },
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
