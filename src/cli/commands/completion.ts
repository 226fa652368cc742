import { UsageError } from '../../system/errors.js';
import { completionScript, SHELLS, type Shell } from '../../flags/completion.js';
import type { CommandDeps } from '../../context/command-deps.js';
import type { CompletionOptions } from './completion.options.js';

/** `examctl completion bash|zsh|fish|powershell`: the script on stdout, generated from the program it is part of. */
export async function run(options: CompletionOptions, deps: CommandDeps): Promise<number> {
  const shell = options.shell;
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(
      `completion needs a shell: ${SHELLS.join(', ')}${shell === undefined ? '' : ` (not "${shell}")`}`,
    );
  }
  const { buildProgram } = await import('../command-tree.js');
  await deps.stdout.write(
    completionScript(
      shell as Shell,
      buildProgram(deps, () => undefined),
    ),
  );
  return 0;
}
