/**
 * The signals that stop a run as gracefully as Ctrl-C (in-flight work finished, the report and
 * the journal written, exit 130); a second one means "now". Import-light: the entry point loads it.
 * - SIGINT: Ctrl-C.
 * - SIGTERM: a service manager, `kill`, a CI cancel on Linux and macOS runners.
 * - SIGHUP: the terminal or ssh session went away; by default it would kill the run without a
 *   report or an end line. Writes to the lost terminal then fail with EIO, dropped like EPIPE.
 * - SIGBREAK: Ctrl-Break in a Windows console (Node delivers it on Windows only; elsewhere
 *   listening is allowed and nothing sends it). A CI cancel on Windows is no signal at all but
 *   a hard kill (TerminateProcess): the run journal lets `runs resume` finish such a run.
 */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
