import type { IntegrationApi } from '../port/integration-api.js';
import { UsageError } from '../system/errors.js';
import { confirmed, promptsOff, type CommandDeps } from '../context/command-deps.js';
import { promptsOffWords } from '../terminal/prompt-state.js';
import { type GlobalOptions } from '../flags/global-options.js';
import { say } from '../formats/terminal-text.js';
import { openRunReport } from './report-sinks.js';
import { openTargetApi } from '../context/target.js';
import { noTokenError } from '../context/remote-settings.js';
import { type ResolvedTarget, type TargetOf } from '../context/resolved-target.js';
import type { RecordJob, RunOptions } from './record-job.js';
import { refuseUntrustedRunsDir, startJournaling, type JournaledTraits, type RunJournaling } from './run-journaling.js';

/**
 * Everything between "the input is structurally sound" and "send": the target, the remote
 * confirmation, the API (creating the local store on first use; null: validate only, a dry run without a store or
 * a remote one), the report destinations and the journal every real run that reaches a target keeps (docs/runs.md).
 * `describeSend` says what would be sent ("12 records"); asked only when a person confirms.
 */
export async function openRun(
  job: RecordJob<unknown, unknown>,
  describeSend: () => Promise<string | { plan: string }>,
  options: RunOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
  units?: number,
) {
  const command = job.command;
  // Asked before anything is opened.
  const syncMemory = job.syncMemory?.();
  const journaled: JournaledTraits = {
    lostAttemptDid: job.lostAttemptDid,
    storeKeys: job.storeKeys,
    holds: job.holds,
    headSeen: job.headSeen?.(),
    choosesIds: job.withChosenId !== undefined,
  };
  const plannedRun = job.plannedAgainst?.();
  const dryRun = options.dryRun ?? false;
  const target = await targetOf();
  if (!dryRun && deps.resume === undefined) await refuseUntrustedRunsDir(options, deps);
  if (!dryRun) await confirmRemote(command, target, describeSend, options, deps);
  // A run that sends starts its journal while a remote API opens (~100 ms of modules); on a local
  // target, once the store is open (its INSTANCE is recorded), and where its header records the store's
  // head (`storeKeys`), once the API can ask it.
  const opening = (deps.openApi ?? openTargetApi)(target, { dryRun, deps });
  const start = (api?: IntegrationApi | null) => startJournaling(command, target, units, options, deps, journaled, api);
  const [opened, started] = await Promise.allSettled([
    opening,
    dryRun ? undefined : target.kind === 'local' || journaled.storeKeys !== undefined ? opening.then(start) : start(),
  ]);
  if (opened.status === 'rejected' || (opened.value === null && started.status === 'fulfilled')) {
    // No API, nothing to send: a journal started beside it goes (a resumed one is kept as it was).
    if (started.status === 'fulfilled' && started.value !== undefined)
      await (deps.resume === undefined ? started.value.discard() : started.value.close());
    if (opened.status === 'rejected') throw opened.reason;
  }
  const api = opened.status === 'fulfilled' ? opened.value : null;
  let journal: RunJournaling | undefined;
  try {
    if (started.status === 'rejected') throw started.reason;
    if (api !== null) journal = started.value;
    const plans = dryRun && api !== null && target.report.kind === 'local';
    const report = await openRunReport(
      {
        command,
        target: target.report,
        ...target.note,
        dryRun,
        ...(plans ? { plans: true as const } : {}),
        run: journal?.id,
        syncMemory,
      },
      { ...options, plannedRun },
      deps,
      { notes: job.summaryNotes },
    );
    // Named only once the run can go ahead: a run refused here (an unwritable --report) is not kept.
    if (journal !== undefined && deps.resume === undefined) await deps.applying?.onRun?.(journal.id);
    if (journal !== undefined)
      await say(
        deps,
        `${deps.resume === undefined ? 'run' : 'resuming run'} ${journal.id} (examctl runs show ${journal.id})`,
      );
    return { target, api, report, journal };
  } catch (error) {
    // Nothing was sent: a new run's journal goes; a resumed one keeps its history and stays resumable.
    if (deps.resume === undefined) await journal?.discard();
    else await journal?.close();
    await api?.close();
    throw error;
  }
}

/** Before sending to a remote target: a person confirms, or --yes says so up front. */
async function confirmRemote(
  command: string,
  target: ResolvedTarget,
  describe: () => Promise<string | { plan: string }>,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<void> {
  if (target.kind !== 'remote' || options.yes) return;
  // No token anywhere: said before a person is asked to confirm a send that could not happen.
  if (target.tokenSource === undefined) throw noTokenError();
  const off = promptsOff(options, deps);
  if (off !== undefined) {
    throw new UsageError(
      `sending to remote ${target.baseUrl} needs confirmation: add --yes (${promptsOffWords(off)})`,
      {
        code: 'E2005',
      },
    );
  }
  // What, how many, where: enough to catch the wrong file or the wrong profile before anything leaves.
  // Counted only now: a job that groups records (schedule push) reads its input again for it.
  const described = await describe();
  const question =
    typeof described === 'string'
      ? `${command}: ${described} to send to remote ${target.baseUrl} (records that fail the local checks are not sent).${pageSentence(options, false)}`
      : `${command} to remote ${target.baseUrl}, plan: ${described.plan}.${pageSentence(options, true)}`;
  if (!(await confirmed(deps, question))) throw new UsageError('not confirmed: nothing was sent');
}

/** Where a person reads every record: the run's HTML page, or, beside a plan, how to have one first (docs/human.md). */
function pageSentence(options: GlobalOptions, plan: boolean): string {
  if (options.report !== undefined && /\.html?$/i.test(options.report))
    return ` Every record: ${options.report}, written when the run ends.`;
  return plan ? ' Every record, before sending: the same command with --dry-run --report plan.html.' : '';
}
