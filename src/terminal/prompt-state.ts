/**
 * Whether a prompt is waiting, for the entry point: a prompt whose input ended (Ctrl-D) leaves nothing to
 * wait on, and the process would end with exit 0. Import-free.
 */
let open = 0;

export function promptOpened(): void {
  open += 1;
}

export function promptClosed(): void {
  open -= 1;
}

export function promptIsOpen(): boolean {
  return open > 0;
}

/** CI=true (and the other usual truthy spellings). CI=false or CI=0 is not CI. */
export function isCiEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  return !['', 'false', '0', 'no'].includes((env.CI ?? '').trim().toLowerCase());
}
