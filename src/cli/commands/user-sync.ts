import type { IntegrationApi } from '../../api/integration-api.js';
import { problemsFrom } from '../../api/envelope-errors.js';
import { coerceAndValidateUser, USER_COLUMNS, validateUser } from '../../domain/index.js';
import type { Problem } from '../../domain/problem.js';
import type { UserRequest, UserResponseContent } from '../../domain/types.js';
import type { InputRecord } from '../../input/record.js';
import { promptIoOf, promptsAllowed, type CommandDeps } from '../context.js';
import { outcomeOf, runRecords, type Outcome, type RecordJob, type Unit } from '../run-records.js';
import { openTargetDirectory, type TargetOf } from '../target.js';
import { idOf, readInput, sourceRowsOf } from './input-helpers.js';
import type { UserSyncOptions } from './user-sync.options.js';

export const PROMPT_SOURCE = '<prompt>';

/** `examctl user sync`: one POST /user per record (create or update), or one prompted user on a terminal. */
export async function run(options: UserSyncOptions, deps: CommandDeps, target: TargetOf): Promise<number> {
  const records = await userRecords(options, deps, target);
  const job: RecordJob<UserRequest> = {
    command: 'user sync',
    records,
    oneUnitPerRecord: true,
    async *units(input) {
      for await (const record of input) yield userUnit(record);
    },
    // One unit per record: lets the run take records in batches (no promise per record).
    unit: userUnit,
    // A prompted user is remembered to say what became of it; a file run sends untouched.
    send:
      options.file === undefined
        ? async (api, user, callOptions) => {
            last = { id: user.ExternalId, outcome: await sendUser(api, user, callOptions) };
            return last.outcome;
          }
        : sendUser,
  };
  let last: { id: string; outcome: Outcome } | undefined;
  const code = await runRecords(job, options, deps, target);
  // One prompted user: say what became of it (the summary table only counts).
  if (options.file === undefined && last !== undefined && last.outcome.status !== 'failed') {
    await deps.stderr.write(`user ${last.id} ${options.dryRun ? 'would be ' : ''}${last.outcome.action ?? 'sent'}\n`);
  }
  return code;
}

async function userRecords(options: UserSyncOptions, deps: CommandDeps, target: TargetOf): Promise<() => AsyncIterable<InputRecord>> {
  if (options.file !== undefined) {
    const file = options.file;
    return () => readInput(file, deps, { columns: USER_COLUMNS, ignoreUnknownColumns: options.ignoreUnknownColumns ?? false });
  }
  const { missingValue, promptUser } = await import('../prompts.js');
  if (!promptsAllowed(options, deps)) throw missingValue('--file');
  const fields = await promptOneUser(deps, target, promptUser);
  const record: InputRecord = { source: { file: PROMPT_SOURCE, line: 1, index: 0 }, fields };
  return async function* () {
    yield record;
  };
}

/**
 * On the local target the world is known: Role is a choice among its roles, and an existing
 * user's values are offered as defaults. A remote target has no such lists: free text.
 */
async function promptOneUser(
  deps: CommandDeps,
  target: TargetOf,
  promptUser: typeof import('../prompts.js').promptUser,
): Promise<Record<string, unknown>> {
  const directory = await (deps.openDirectory ?? openTargetDirectory)(await target(), deps);
  try {
    const roles = directory?.roleTitles() ?? [];
    return await promptUser(
      {
        ...(roles.length > 0 ? { roles } : {}),
        ...(directory ? { lookup: (externalId: string) => directory.userOf(externalId) } : {}),
      },
      promptIoOf(deps),
    );
  } finally {
    await directory?.close();
  }
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
