import type { ErrorCodeId } from '../system/error-codes.js';
import { TargetError, UsageError } from '../system/errors.js';

/** A run that cannot be shown or resumed (damaged, unknown, finished, running, input changed): exit 2, nothing sent. */
export class RunJournalError extends UsageError {
  static override readonly defaultCode: ErrorCodeId = 'E2200';
}

/** `runs resume` of a run with nothing left to send: said, not failed (docs/runs.md, "runs resume"). */
export class NothingToResumeError extends RunJournalError {
  constructor(
    message: string,
    /** The finished run, when one was named: its report is what the resume gives. */
    readonly finishedRun?: string,
  ) {
    super(message);
  }
}

/** The journal could not be written: mid-run it stops the run (docs/runs.md, "Honest ends"); not exit 2. */
export class RunJournalWriteError extends TargetError {
  static override readonly defaultCode: ErrorCodeId = 'E3050';
}
