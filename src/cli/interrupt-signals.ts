/**
 * The signals that stop a run as gracefully as Ctrl-C (docs/runs.md, "Honest ends"; on Windows,
 * docs/windows.md, "Signals"); a second one means "now". Import-light: the entry point loads it.
 */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];

/** After the requests' grace, how long the reports have to be written. */
const REPORT_GRACE_MS = 10_000;

/**
 * The bound on a run's end after the first signal: the requests' grace (EXAMCTL_STOP_GRACE_MS,
 * 10 s) and 10 s more for the reports; past it (a report pipe nobody reads, a big input's read)
 * `quit` is told why and the run leaves as on a second signal (docs/runs.md, "Honest ends").
 */
export function boundAfterSignal(env: Readonly<Record<string, string | undefined>>, setTimer: (run: () => void, ms: number) => { unref(): unknown }, quit: (why: string) => void): void {
  const given = env.EXAMCTL_STOP_GRACE_MS?.trim() ?? '';
  const ms = (/^\d{1,9}$/.test(given) ? Number(given) : 10_000) + REPORT_GRACE_MS;
  const why = `examctl: the run did not end within ${ms / 1000} s of the interrupt (a report or output nobody reads, or a long read): quitting now; a report not finished is not kept ("examctl runs show <id> --report" writes it again)\n`;
  setTimer(() => quit(why), ms).unref();
}
