import { UsageError } from '../errors.js';

/**
 * A run that cannot be shown, resumed or written: damaged or newer journal, unknown id,
 * finished or running run, changed input, a journal write that failed. Exit 2, with the reason.
 */
export class RunJournalError extends UsageError {}
