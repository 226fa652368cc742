import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { initLocalStore } from '../../context/local-init.js';
import type { LocalInitOptions } from './local-init.options.js';

/** `examctl local init`: a new store from a world file (default: the bundled demo world). */
export async function run(
  { seed, force, syncDir: _syncDir, ...globals }: LocalInitOptions,
  deps: CommandDeps,
): Promise<number> {
  await initLocalStore(seed, force ?? false, onlyGlobals(globals), deps);
  return 0;
}
