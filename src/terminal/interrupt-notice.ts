/**
 * What the entry point says on the first Ctrl-C (or SIGTERM, SIGHUP). A run finishes what is in
 * flight and writes its report; a command that writes no report (local serve) says what it does
 * instead. Import-light: the entry point loads it.
 */
let notice = 'interrupted: finishing what is in flight, then writing the report (Ctrl-C again to quit now)';

export function interruptNotice(): string {
  return notice;
}

/** Set by a command whose stop is not a run's (no report): called before it waits. */
export function setInterruptNotice(text: string): void {
  notice = text;
}
