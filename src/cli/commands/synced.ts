import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import type { TargetOf } from '../../context/resolved-target.js';
import { forgetTargetMemory, showMemories } from '../../sync/memory-views.js';
import type { SyncDirOnlyOptions } from './synced.options.js';

/** `synced show` (sync/memory-views.ts). */
export async function runShow({ syncDir, ...globals }: SyncDirOnlyOptions, deps: CommandDeps): Promise<number> {
  return showMemories(syncDir, onlyGlobals(globals), deps);
}

/** `synced forget` (sync/memory-views.ts). */
export async function runForget(
  { syncDir, ...globals }: SyncDirOnlyOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  return forgetTargetMemory(syncDir, onlyGlobals(globals), deps, target);
}
