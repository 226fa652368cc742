import type { CommandDeps } from '../../context/command-deps.js';
import { renderEnvironmentHelp } from '../environment-variables.js';

/** `examctl help environment`: every environment variable examctl reads (help text: stdout, as commander's help). */
export async function run(_options: unknown, deps: CommandDeps): Promise<number> {
  await deps.stdout.write(renderEnvironmentHelp());
  return 0;
}
