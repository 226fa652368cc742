import { say } from '../../formats/terminal-text.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { initLocalStore, localInitDocument, localInitLines } from '../../context/local-init.js';
import type { LocalInitOptions } from './local-init.options.js';

/** `examctl local init`: a new store from a world file (default: the bundled demo world). */
export async function run(
  { seed, force, syncDir: _syncDir, ...globals }: LocalInitOptions,
  deps: CommandDeps,
): Promise<number> {
  const options = onlyGlobals(globals);
  const init = await initLocalStore(seed, force ?? false, options, deps);
  for (const line of localInitLines(init, options.json === true)) await say(deps, line);
  if (options.json) await printJson(deps, localInitDocument(init));
  return 0;
}
