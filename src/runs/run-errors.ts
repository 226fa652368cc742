import type { ErrorCodeId } from '../system/error-codes.js';
import { TargetError, UsageError } from '../system/errors.js';

/**
 * A run that cannot be shown or resumed: damaged or newer journal, unknown id, finished or
 * running run, changed input. Exit 2, with the reason; nothing was sent.
 */
export class RunJournalError extends UsageError {
  static override readonly defaultCode: ErrorCodeId = 'E2200';
}

/**
 * `runs resume` of a run that has nothing left to send: it finished, or (no id given) no run is
 * interrupted. A resume run twice ends the second time as the first did (docs/runs.md, "runs
 * resume"), so the command says so and does not fail for it.
 */
export class NothingToResumeError extends RunJournalError {
  constructor(
    message: string,
    /** The finished run, when one was named: its report is what the resume gives. */
    readonly finishedRun?: string,
  ) {
    super(message);
  }
}

/**
 * The run's journal could not be written (a full disk, a read-only or removed runs directory): met
 * mid-run, it stops the run as docs/runs.md, "Honest ends" says. Not exit 2, which says nothing was sent.
 */
export class RunJournalWriteError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3050';
}
