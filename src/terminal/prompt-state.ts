/** Which prompt an interrupt stops (`a prompt`, `the token prompt`) and what it left (`nothing was sent`). */
export interface PromptWords {
  at: string;
  outcome: string;
}

/**
 * The prompts waiting, for the entry point: a prompt whose input ended (Ctrl-D) leaves nothing to wait on, and the
 * process would end with exit 0; it says the prompt's own words. Import-free.
 */
const open: PromptWords[] = [];

export function promptOpened(words: PromptWords): void {
  open.push(words);
}

export function promptClosed(): void {
  open.pop();
}

/** The prompt waiting (the last opened), if any. */
export function openPrompt(): PromptWords | undefined {
  return open.at(-1);
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
