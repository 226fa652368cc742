import { resolve } from 'node:path';
import { BUNDLED_WORLD_PATH, ENGINE_INDEXER, loadWorldFile, lockTimeoutFromEnv, worldToChanges } from '../../engine/index.js';
import { createStore } from '../../engine/store/index.js';
import type { CommandDeps, GlobalOptions } from '../context.js';
import { localStorePath } from '../target.js';

export interface LocalInitOptions extends GlobalOptions {
  seed?: string;
  force?: boolean;
}

/** `examctl local init`: a new store from a world file (default: the bundled demo world). */
export async function run(options: LocalInitOptions, deps: CommandDeps): Promise<number> {
  const store = localStorePath(options, deps);
  const seed = options.seed === undefined ? BUNDLED_WORLD_PATH : resolve(deps.cwd, options.seed);
  const world = await loadWorldFile(seed);
  if (options.dryRun) {
    await deps.stderr.write(`dry run: ${options.seed ?? 'the demo world'} is a valid world file; no store created at ${store}\n`);
  } else {
    const lockTimeoutMs = lockTimeoutFromEnv(deps.env);
    await createStore(store, worldToChanges(world), { force: options.force ?? false, indexer: ENGINE_INDEXER, lockTimeoutMs });
    await deps.stderr.write(`${options.force ? 'replaced' : 'created'} local store at ${store} from ${options.seed ?? 'the demo world (fixtures/world.json)'}\n`);
  }
  if (options.json) {
    const document = { command: 'local init', target: { kind: 'local', store }, dryRun: options.dryRun ?? false, seed };
    await deps.stdout.write(`${JSON.stringify(document)}\n`);
  }
  return 0;
}
