import { COMPLETION_SCRIPTS } from '../../flags/completion.js';
import type { CliDeps } from '../command-declaration.js';
import type { CompletionOptions } from './completion.options.js';

/** `examctl completion bash|zsh|fish|powershell`: the script on stdout, generated from the program it is part of. */
export async function run(options: CompletionOptions, deps: CliDeps): Promise<number> {
  const { buildProgram } = await import('../command-tree.js');
  await deps.stdout.write(COMPLETION_SCRIPTS[options.shell](buildProgram(deps, () => undefined, deps.commands ?? [])));
  return 0;
}
