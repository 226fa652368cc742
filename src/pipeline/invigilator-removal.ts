import type { ApiResult, CallOptions, IntegrationApi } from '../port/integration-api.js';
import { capProblems, problemsFrom } from '../api/envelope-errors.js';
import { ErrorCode } from '../domain/codes.js';
import { validateInvigilatorRemoval } from '../domain/invigilators.js';
import type { Problem, Validation } from '../domain/problem.js';
import type { InvigilatorsResponseContent } from '../domain/types.js';
import type { Outcome } from './record-job.js';
import { failureProblems, removedByLostAttempt } from './service-answer.js';
import type { LostAttemptDid } from '../runs/resume-plan.js';
import type { CommandDeps } from '../context/command-deps.js';
import { say } from '../formats/terminal-text.js';
import { namedFirst } from '../formats/number-format.js';
import type { readIdList } from '../input/id-list.js';
import { dryRunReportRefused, isDryRunStatus, noStatusColumn } from '../formats/report-csv-contract.js';
import { UsageError } from '../system/errors.js';

/** The list is checked whole: a schedule's problem fails every id, an id's fails that id only. */
export function preparedIds(scheduleExtId: string, entries: ReadonlyArray<{ id: string }>): Validation<string>[] {
  const validation = validateInvigilatorRemoval(
    scheduleExtId,
    entries.map((e) => e.id),
  );
  const perId = new Map<number, Problem[]>();
  const whole: Problem[] = [];
  for (const problem of validation.ok ? [] : validation.problems) {
    const index = /^UserExtIds\[(\d+)\]$/.exec(problem.field)?.[1];
    if (index === undefined) whole.push(problem);
    else perId.set(Number(index), [...(perId.get(Number(index)) ?? []), problem]);
  }
  return entries.map((entry, index) => {
    const problems = whole.length > 0 ? whole : perId.get(index);
    return problems ? { ok: false, problems } : { ok: true, value: entry.id };
  });
}

/** --only-failed's report must be a real run's removal from this schedule, with a status column: else exit 2. */
export function refuseNotThisRemovalsReport(
  listed: Awaited<ReturnType<typeof readIdList>>,
  file: string,
  scheduleExtId: string,
): void {
  if (listed.length > 0 && listed[0]!.status === undefined) throw noStatusColumn(file);
  // A dry run's report: none of its ids was removed, so --only-failed would leave out the valid ones.
  const dry = listed.find((entry) => isDryRunStatus(entry.status));
  if (dry !== undefined) throw dryRunReportRefused(dry.source.file, dry.source.line, 'invigilators remove');
  // Another schedule's report: its failures were about that schedule, not this one.
  const other = listed.find((entry) => entry.schedule !== undefined && entry.schedule !== scheduleExtId);
  if (other !== undefined) {
    throw new UsageError(
      `${other.source.file}:${other.source.line}: --only-failed: this report is of a removal from schedule ${other.schedule}, not ${scheduleExtId}: nothing was sent (run it against ${other.schedule}, or give ${scheduleExtId}'s ids as a list)`,
    );
  }
}

/** One DELETE for every id dispatched together (`sendsTogether`); each gets its own outcome from the one answer. */
export class RemovalCall {
  private ids: string[] = [];
  private answer: Promise<(id: string) => Outcome> | undefined;

  constructor(
    private readonly scheduleExtId: string,
    /** --missing-ok: a 319 is ok (already not an invigilator). */
    private readonly missingOk: boolean,
  ) {}

  /** With --missing-ok a 319 is ok and unchanged: still what a lost removal would leave (a resume cannot tell). */
  readonly lostAttemptDid: LostAttemptDid = (answer) =>
    removedByLostAttempt(answer) ??
    (this.missingOk && answer.status === 'ok' && answer.action === 'unchanged' ? 'removed' : undefined);

  /** Who is no longer an invigilator, named after the summary; a failed 319 (not an invigilator) too. */
  readonly remember = (_unit: unknown, id: string, outcome: Outcome): RemovedId | undefined =>
    outcome.status === 'failed' && removedByLostAttempt(outcome) === undefined
      ? undefined
      : {
          id,
          was:
            outcome.action === 'sent'
              ? 'unknown'
              : outcome.status === 'ok' && outcome.action !== 'unchanged'
                ? 'removed'
                : 'absent',
        };

  async outcomeFor(api: IntegrationApi, id: string, options: CallOptions): Promise<Outcome> {
    this.ids.push(id);
    // The call leaves once the ids dispatched with this one are in (after the current turn).
    this.answer ??= Promise.resolve().then(() => this.send(api, options));
    const outcomeOf = await this.answer;
    return outcomeOf(id);
  }

  private async send(api: IntegrationApi, options: CallOptions): Promise<(id: string) => Outcome> {
    const ids = this.ids;
    this.ids = [];
    this.answer = undefined;
    return this.interpret(await api.removeInvigilators(this.scheduleExtId, ids, options), options.dryRun === true);
  }

  /** Each id's outcome from the answer: ok when SuccessfullyRemoved lists it, failed for a 319 unless --missing-ok. */
  private interpret(result: ApiResult<InvigilatorsResponseContent>, dryRun: boolean): (id: string) => Outcome {
    const { scheduleExtId, missingOk } = this;
    const { envelope } = result;
    if (!envelope.Success) {
      const problems = failureProblems(result);
      return () => ({ status: 'failed', errors: problems });
    }
    const byUser = new Map<string, Problem[]>();
    const content = envelope.Content as Partial<InvigilatorsResponseContent> | null;
    // Ids compare ignoring case, as the service's do (docs/domain-rules.md).
    const removed = new Set(
      Array.isArray(content?.SuccessfullyRemoved)
        ? content.SuccessfullyRemoved.map((id) => String(id).toLowerCase())
        : [],
    );
    for (const entry of Array.isArray(content?.Errors) ? content.Errors : []) {
      const user = typeof entry?.UserExtId === 'string' ? entry.UserExtId.toLowerCase() : '';
      const problems = problemsFrom([{ Code: entry?.Code, Message: entry?.Error }]);
      byUser.set(user, [...(byUser.get(user) ?? []), ...problems.map((p) => ({ ...p, field: 'UserExtId' }))]);
    }
    // A 319's note: with --missing-ok the end state asked for; without it, the flag that takes it as done.
    const note = missingOk
      ? `already not an invigilator of ${scheduleExtId} (the service answered 319): nothing to remove (--missing-ok)`
      : `not an invigilator of ${scheduleExtId}: nothing to remove (with --missing-ok that is ok)`;
    return (id) => {
      const listed = byUser.get(id.toLowerCase());
      if (dryRun && !listed) return { status: 'ok', errors: [] };
      if (!listed)
        return removed.has(id.toLowerCase())
          ? { status: 'ok', errors: [], action: 'removed' }
          : { status: 'failed', errors: [UNCONFIRMED] };
      const notAnInvigilator = listed.every((e) => e.code === ErrorCode.NotAnInvigilator);
      if (notAnInvigilator && missingOk) return { status: 'ok', errors: [], action: 'unchanged', note };
      // A 319 without the flag: failed, nothing of that item was done (docs/interpretations.md, "Invigilators").
      return { status: 'failed', errors: capProblems(listed), ...(notAnInvigilator ? { note } : {}) };
    };
  }
}

/** An id a 200 names neither as removed nor with an error: it may still be an invigilator. */
const UNCONFIRMED: Problem = {
  field: 'UserExtId',
  code: ErrorCode.RemovalNotConfirmed,
  message: 'the service did not confirm removing it',
};

/** Removed by this run, not an invigilator (319), or gone with no telling which (an interrupted attempt's resend). */
export interface RemovedId {
  id: string;
  was: 'removed' | 'absent' | 'unknown';
}

/** How many ids the line names before it only counts. */
const NAMED_IDS = 20;

/** After the summary: who was removed, who was not an invigilator, and who is gone with no telling which. */
export async function sayWhoWasRemoved(
  scheduleExtId: string,
  remembered: readonly RemovedId[],
  dryRun: boolean,
  deps: CommandDeps,
): Promise<void> {
  const list = (ids: string[]) => namedFirst(ids, NAMED_IDS);
  const ids = (was: RemovedId['was']) => remembered.filter((kept) => kept.was === was).map((kept) => kept.id);
  const [removed, notThere, unknown] = [ids('removed'), ids('absent'), ids('unknown')];
  if (removed.length > 0)
    await say(deps, `${dryRun ? 'would remove' : 'removed'} from ${scheduleExtId}: ${list(removed)}`);
  if (notThere.length > 0)
    await say(deps, `not invigilators of ${scheduleExtId} (nothing to remove): ${list(notThere)}`);
  if (unknown.length > 0) {
    await say(
      deps,
      `no longer invigilators of ${scheduleExtId} (the interrupted attempt may have removed them, or they were not): ${list(unknown)}`,
    );
  }
}
