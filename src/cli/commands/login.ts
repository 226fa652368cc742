import type { CommandDeps } from '../../context/command-deps.js';
import { login } from '../../context/login.js';
import type { LoginOptions } from './login.options.js';

/** `examctl login [--profile name]`: docs/remote.md, "Pointing at a real platform", step 2. */
export async function run(options: LoginOptions, deps: CommandDeps): Promise<number> {
  await login(options, deps);
  return 0;
}
