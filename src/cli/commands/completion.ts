import { completionScript } from '../../flags/completion.js';
import type { CommandDeps } from '../../context/command-deps.js';
import type { CompletionOptions } from './completion.options.js';

/** `examctl completion bash|zsh|fish|powershell`: the script on stdout, generated from the program it is part of. */
export async function run(options: CompletionOptions, deps: CommandDeps): Promise<number> {
  const { buildProgram } = await import('../command-tree.js');
  await deps.stdout.write(
    completionScript(
      options.shell,
      buildProgram(deps, () => undefined),
    ),
  );
  return 0;
}
