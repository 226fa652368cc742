/**
 * Whether a prompt is waiting for an answer, for the entry point: a prompt whose input ended
 * (Ctrl-D on a terminal) leaves nothing for the process to wait on, and the process would
 * otherwise end by itself with exit 0. Import-free, so the entry point loads no prompt code. Here too: the one rule for asking.
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

/** The one rule for asking: a terminal, and neither --no-input nor CI=true. */
export function canPrompt(options: {
  isTTY: boolean | undefined;
  noInput: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): boolean {
  return options.isTTY === true && !options.noInput && !isCiEnvironment(options.env);
}

/** CI=true (and the other usual truthy spellings). CI=false or CI=0 is not CI. */
export function isCiEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  return !['', 'false', '0', 'no'].includes((env.CI ?? '').trim().toLowerCase());
}
