/**
 * What the entry point says on the first Ctrl-C (or SIGTERM, SIGHUP): a run finishes what is in flight and
 * writes its report; a command without one (local serve) says what it does. Import-light.
 */
let notice = 'interrupted: finishing what is in flight, then writing the report (Ctrl-C again to quit now)';

export function interruptNotice(): string {
  return notice;
}

/** Set by a command whose stop is not a run's (no report): called before it waits. */
export function setInterruptNotice(text: string): void {
  notice = text;
}
