import type { IntegrationApi } from '../../port/integration-api.js';
import { groupErrorProblems } from '../../api/envelope-errors.js';
import { coerceAndValidateUser } from '../../domain/coercion.js';
import { USER_COLUMNS } from '../../domain/columns.js';
import { validateUser, type UserResponseContent } from '../../domain/user.js';
import { USER_ID_RULE } from '../../domain/one-id-per-file.js';
import type { UserRequest } from '../../domain/types.js';
import type { InputRecord } from '../../input/record.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { unitPerRecord, type RecordJob, type Unit, type RunOptions } from '../../pipeline/record-job.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { outcomeOf } from '../../pipeline/service-answer.js';
import { type TargetOf } from '../../context/resolved-target.js';
import { readInput, sourceRowsOf, type InputFlagOptions } from '../../pipeline/command-input.js';
import { idOf } from '../../domain/record-id.js';
import { USER_SYNC, USER_SYNC_MEMORY_OPTIONS, type UserSyncOptions } from './user-sync.options.js';
import { FILE_OPTIONS } from './file-options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { commandName } from '../command-declaration.js';
import type { RerunInput } from '../../pipeline/record-job.js';
import { UsageError } from '../../system/errors.js';
import { populationOf, USER_SYNC_NOTES, UserSyncMemory, type UserSyncFlags } from '../../sync/user-sync-memory.js';
import { onlyWhichOf } from '../../sync/known-ids.js';
import { storeHoldsUser } from '../../sync/adopt-sittings.js';
import { syncPromptedUser } from '../../pipeline/user-questions.js';

/** `examctl user sync`: one POST /user per record (create or update), or one prompted user on a terminal. */
export async function run(given: UserSyncOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const [input, rest] = takeTableFlags(given, FILE_OPTIONS);
  // `planOut` is read by the pipeline (a dry run's plan: plan-tap.ts).
  const [memoryFlags, { file, planOut: _planOut, ...globals }] = takeTableFlags(rest, USER_SYNC_MEMORY_OPTIONS);
  const { population, onlyNew, onlyExisting, ...flags } = memoryFlags;
  const options = onlyGlobals(globals);
  const { onlyFailed, timezone, dateFormat } = input;
  const runOptions = { ...options, onlyFailed, timezone, dateFormat };
  const only = onlyWhichOf(onlyNew, onlyExisting);
  if (file !== undefined) {
    const sync = {
      ...flags,
      file,
      population: populationOf(population),
      only,
      runsDir: options.runsDir,
      dryRun: options.dryRun,
    };
    return syncFile({ file, ...input, ...globals }, sync, runOptions, deps, target);
  }
  return syncPromptedUser(
    { command: commandName(USER_SYNC), ...unitPerRecord(userUnit), send: sendUser },
    runOptions,
    deps,
    target,
  );
}

/** A file run, with the sync memory (docs/sync.md): fed by every real run, read by the nightly-sync flags. */
async function syncFile(
  input: Parameters<typeof userSyncInput>[0] & Pick<UserSyncOptions, 'onlyFailed'>,
  flags: UserSyncFlags,
  runOptions: RunOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const read = userSyncInput(input, deps);
  const memory = new UserSyncMemory(flags, deps, target, read.records, userUnit);
  const { units, readIds } = unitPerRecord(
    (record) => memory.recordUnit(record),
    USER_ID_RULE,
    () => (input.onlyFailed ? undefined : memory.fileIds),
  );
  const job: RecordJob<UserRequest> = {
    command: commandName(USER_SYNC),
    ...read,
    readIds,
    // The leavers come after the file's units: known once prepare ran, they are added to the count.
    unitCount: (records) => records + memory.leaverCount,
    async *units(batches) {
      for await (const batch of units(batches))
        yield batch.map((unit) => memory.reportRows(memory.leaveOut(memory.unit(unit))));
      yield* memory.leaverBatches();
    },
    prepare: () => memory.prepare(),
    opened: (api) => memory.opened(api),
    ...memory.hooks(),
    storeKeys: USER_SYNC.storeKeys,
    holds: (directory, user) => storeHoldsUser(directory, user),
    send: async (api, user, options) =>
      memory.answered(user, user.ExternalId, memory.outcome(user, await sendUser(api, user, options))),
  };
  const { exitCode } = await memory.closingOnFailure(() => runPipeline(job, runOptions, deps, target));
  await memory.sayKeptLinks();
  return exitCode;
}

/** The run's input read again by `runs show`; a run without --file took its user at prompts. */
export const rerunInput: RerunInput = async (options, deps) => {
  if (typeof options.file !== 'string') throw new UsageError('no input file: its user was given at prompts');
  return userSyncInput(options as never, deps);
};

/** A file run's records and units, as the pipeline reads them (and `runs show` reads them again). */
export function userSyncInput(
  {
    file,
    ignoreUnknownColumns,
    sheet,
    hiddenRows,
    encoding,
    ...flags
  }: Pick<UserSyncOptions, 'ignoreUnknownColumns' | 'sheet' | 'hiddenRows' | 'encoding'> &
    InputFlagOptions & { file: string },
  deps: CommandDeps,
): Pick<RecordJob<UserRequest>, 'records' | 'units' | 'unitCount' | 'summaryNotes'> {
  // One reader for every pass: a CSV's structure pass keeps its rows for the send (csv-reader.ts, KEEP_ROWS_MAX_CHARS).
  let input: AsyncIterable<InputRecord> | undefined;
  return {
    records: () =>
      (input ??= readInput(file, deps, {
        ...flags,
        columns: USER_COLUMNS,
        ignoreUnknownColumns: ignoreUnknownColumns ?? false,
        sheet,
        hiddenRows,
        encoding,
        command: 'user sync',
      })),
    ...unitPerRecord(userUnit, USER_ID_RULE),
    summaryNotes: USER_SYNC_NOTES,
  };
}

/**
 * A record to its unit: what `user sync` sends, and what `synced adopt` records as if it had (the raw digests'
 * fingerprint is of this very function).
 */
export function userUnit(record: InputRecord): Unit<UserRequest> {
  // CSV cells are strings to coerce in place (nothing reads them after); JSON values are taken as typed.
  const id = idOf(record.fields, 'ExternalId');
  const prepared = record.raw ? coerceAndValidateUser(record.fields) : validateUser(record.fields);
  return { source: record.source, id, prepared, rows: sourceRowsOf(record) };
}

async function sendUser(api: IntegrationApi, user: UserRequest, options: { dryRun?: boolean }) {
  const result = await api.upsertUser(user, options);
  return outcomeOf<UserResponseContent>(result, (content) => groupErrorProblems(content, user));
}
