/**
 * The signals that stop a run as gracefully as Ctrl-C (docs/runs.md, "Honest ends"; on Windows,
 * docs/windows.md, "Signals"); a second one means "now". Import-light: the entry point loads it.
 */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
