/**
 * The signals that stop a run as gracefully as Ctrl-C (docs/runs.md, "Honest ends"; on Windows,
 * docs/windows.md, "Signals"); a second one means "now". Import-light: the entry point loads it.
 */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];

/**
 * How long a run may take to end after its first signal (docs/runs.md, "Honest ends"): the
 * requests' grace (EXAMCTL_STOP_GRACE_MS) and 10 s for the reports; then it leaves as on a second.
 */
export function endBound(grace = ''): { ms: number; why: string } {
  const ms = (/^\d{1,9}$/.test(grace.trim()) ? Number(grace) : 10_000) + 10_000;
  return {
    ms,
    why: `examctl: not ended ${ms / 1000} s after the interrupt: quitting; a report not finished is not kept\n`,
  };
}
