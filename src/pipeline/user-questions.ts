import type { Problem } from '../domain/problem.js';
import type { UserRequest } from '../domain/types.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../context/command-deps.js';
import { openTargetDirectory } from '../context/target.js';
import type { TargetOf } from '../context/resolved-target.js';
import { say } from '../formats/terminal-text.js';
import type { Outcome, RecordJob, RunOptions } from './record-job.js';
import { runPipeline } from './run-pipeline.js';
import { PROMPT_SOURCE } from '../input/record.js';

/* `examctl user sync` without --file: one user asked for at prompts, and again after a failed send (docs/human.md). */

/** Sends the user asked at prompts with `job`; after a failed send, offers to correct the answers and sends again. */
export async function syncPromptedUser(
  job: Omit<RecordJob<UserRequest>, 'records' | 'remember'>,
  runOptions: RunOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  let fields = await askUser(runOptions, deps, target);
  const prompted: RecordJob<UserRequest, { id: string; outcome: Outcome }> = {
    ...job,
    // Read anew on each run, so a corrected answer is what is sent.
    records: async function* () {
      yield { source: { file: PROMPT_SOURCE, line: 1, index: 0 }, fields };
    },
    remember: (_unit, user, outcome) => ({ id: user.ExternalId, outcome }),
  };
  let { exitCode, remembered } = await runPipeline(prompted, runOptions, deps, target);
  while (remembered.at(-1)?.outcome.status === 'failed') {
    const corrected = await correctUser(fields, remembered.at(-1)!.outcome.errors, deps, target);
    if (corrected === null) break;
    fields = corrected;
    ({ exitCode, remembered } = await runPipeline(prompted, runOptions, deps, target));
  }
  const last = remembered.at(-1);
  if (last !== undefined && last.outcome.status !== 'failed')
    await say(deps, `user ${last.id} ${runOptions.dryRun ? 'would be ' : ''}${last.outcome.action ?? 'sent'}`);
  return exitCode;
}

async function askUser(options: GlobalOptions, deps: CommandDeps, target: TargetOf): Promise<Record<string, unknown>> {
  const { missingValue, promptUser } = await import('../terminal/prompts.js');
  const off = promptsOff(options, deps);
  if (off !== undefined) throw missingValue('--file', off);
  return promptOneUser(deps, target, promptUser);
}

/** The answers again, each earlier one the default (Enter keeps it); null when the person declines. */
async function correctUser(
  fields: Record<string, unknown>,
  problems: readonly Problem[],
  deps: CommandDeps,
  target: TargetOf,
): Promise<Record<string, unknown> | null> {
  const { offerCorrection, promptUser } = await import('../terminal/prompts.js');
  const given = Object.entries(fields).map(([name, value]) => ({
    name,
    label: name,
    value: typeof value === 'string' ? value : JSON.stringify(value),
  }));
  const names = await offerCorrection(given, problems, promptIoOf(deps));
  if (names === null) return null;
  // Only the ticked answers are asked again (docs/human.md); the others are sent as they were.
  return promptOneUser(deps, target, promptUser, fields as Partial<UserRequest>, new Set(names));
}

/** Locally, Role is a choice among the store's roles and an existing user's values are defaults; remotely free text. */
async function promptOneUser(
  deps: CommandDeps,
  target: TargetOf,
  promptUser: typeof import('../terminal/prompts.js').promptUser,
  earlier?: Partial<UserRequest>,
  correcting?: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const directory = await (deps.openDirectory ?? openTargetDirectory)(await target(), deps);
  try {
    const roles = directory?.roleTitles() ?? [];
    return await promptUser(
      {
        ...(roles.length > 0 ? { roles } : {}),
        ...(directory
          ? {
              lookup: (externalId: string) => withEarlier(directory.userOf(externalId), externalId, earlier),
              hierarchies: directory.hierarchies(),
            }
          : {}),
        ...(earlier ? { existing: earlier } : {}),
        ...(earlier && correcting
          ? { correct: { names: correcting, answered: earlier as Record<string, unknown> } }
          : {}),
      },
      promptIoOf(deps),
    );
  } finally {
    await directory?.close();
  }
}

/** A stored user's values, with the person's earlier answers over them when correcting that same user. */
function withEarlier(
  stored: Partial<UserRequest> | null,
  externalId: string,
  earlier: Partial<UserRequest> | undefined,
): Partial<UserRequest> | null {
  if (stored === null || earlier === undefined || earlier.ExternalId !== externalId) return stored;
  return { ...stored, ...earlier };
}
