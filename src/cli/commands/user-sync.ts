import type { IntegrationApi } from '../../api/integration-api.js';
import { problemsFrom } from '../../api/envelope-errors.js';
import { coerceAndValidateUser, USER_COLUMNS, validateUser } from '../../domain/index.js';
import type { Problem } from '../../domain/problem.js';
import type { UserRequest, UserResponseContent } from '../../domain/types.js';
import type { InputRecord } from '../../input/record.js';
import { promptsAllowed, type CommandDeps } from '../context.js';
import { outcomeOf, runRecords, type RecordJob, type RunOptions, type Unit } from '../run-records.js';
import { idOf, readInput, sourceRowsOf } from './input-helpers.js';

export interface UserSyncOptions extends RunOptions {
  file?: string;
  ignoreUnknownColumns?: boolean;
}

export const PROMPT_SOURCE = '<prompt>';

/** `examctl user sync`: one POST /user per record (create or update), or one prompted user on a terminal. */
export async function run(options: UserSyncOptions, deps: CommandDeps): Promise<number> {
  const records = await userRecords(options, deps);
  const job: RecordJob<UserRequest> = {
    command: 'user sync',
    records,
    oneUnitPerRecord: true,
    async *units(input) {
      for await (const record of input) yield userUnit(record);
    },
    send: sendUser,
  };
  return runRecords(job, options, deps);
}

async function userRecords(options: UserSyncOptions, deps: CommandDeps): Promise<() => AsyncIterable<InputRecord>> {
  if (options.file !== undefined) {
    const file = options.file;
    return () => readInput(file, deps, { columns: USER_COLUMNS, ignoreUnknownColumns: options.ignoreUnknownColumns ?? false });
  }
  const { missingValue, promptUser } = await import('../prompts.js');
  if (!promptsAllowed(options, deps)) throw missingValue('--file');
  const fields = await promptUser({}, { signal: deps.signal });
  const record: InputRecord = { source: { file: PROMPT_SOURCE, line: 1, index: 0 }, fields };
  return async function* () {
    yield record;
  };
}

function userUnit(record: InputRecord): Unit<UserRequest> {
  // CSV cells are strings to coerce; JSON values are taken as typed.
  const prepared = record.raw ? coerceAndValidateUser(record.fields) : validateUser(record.fields);
  return { source: record.source, id: idOf(record.fields, 'ExternalId'), prepared, rows: sourceRowsOf(record) };
}

async function sendUser(api: IntegrationApi, user: UserRequest, options: { dryRun?: boolean }) {
  const result = await api.upsertUser(user, options);
  return outcomeOf<UserResponseContent>(result, (content) => groupErrorProblems(content, user));
}

/** GroupErrors name a hierarchy by ExternalId; the report names the request's Hierarchies[i]. */
export function groupErrorProblems(content: UserResponseContent, user: UserRequest): Problem[] {
  const errors: unknown = (content as { GroupErrors?: unknown }).GroupErrors;
  if (!Array.isArray(errors)) return problemsFrom(errors, 'Hierarchies');
  return errors.flatMap((entry: unknown) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { ExternalId?: unknown }).ExternalId : undefined;
    const index = typeof id === 'string' ? (user.Hierarchies ?? []).findIndex((h) => h.ExternalId === id) : -1;
    const field = index >= 0 ? `Hierarchies[${index}]` : 'Hierarchies';
    return problemsFrom([entry]).map((problem) => ({ ...problem, field }));
  });
}
