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

interface PromptSettings {
  isTTY: boolean | undefined;
  noInput: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/** What turned prompts off, as a usage error says it (the typed flag first); undefined: they are on. */
export function promptsOffBy(options: PromptSettings): string | undefined {
  if (options.noInput) return '--no-input';
  // Its value as set (CI=1, CI=yes), bounded: it is the environment's text.
  if (isCiEnvironment(options.env)) return `CI=${options.env.CI!.trim().slice(0, 16)}`;
  return options.isTTY === true ? undefined : 'no terminal';
}

/** Why nothing was asked, said by every usage error for a value not given: what turned prompts off. */
export function promptsOffWords(off: string): string {
  return `prompts are off: ${off}`;
}

/** CI=true (and the other usual truthy spellings). CI=false or CI=0 is not CI. */
export function isCiEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  return !['', 'false', '0', 'no'].includes((env.CI ?? '').trim().toLowerCase());
}
