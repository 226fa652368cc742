import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { say } from '../../formats/terminal-text.js';
import { UsageError } from '../../system/errors.js';
import { describeSystemError } from '../../system/system-error-words.js';
import {
  BUNDLED_WORLD_PATH,
  ENGINE_INDEXER,
  loadWorldFile,
  lockTimeoutFromEnv,
  worldToChanges,
} from '../../engine/index.js';
import { createStore } from '../../engine/store/index.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { assertTrustedStore, goneStore, localStorePath, namedStorePath } from '../../context/target.js';
import { DEMO_WORLD } from '../../system/shipped-file.js';
import type { LocalInitOptions } from './local-init.options.js';

/** `examctl local init`: a new store from a world file (default: the bundled demo world). */
export async function run(
  { seed: seedFile, force, syncDir: _syncDir, ...globals }: LocalInitOptions,
  deps: CommandDeps,
): Promise<number> {
  const options = onlyGlobals(globals);
  await assertTrustedStore(namedStorePath(options, deps), deps);
  const store = await localStorePath(options, deps);
  const seed = seedFile === undefined ? BUNDLED_WORLD_PATH : resolve(deps.cwd, seedFile);
  const world = await loadWorldFile(seed);
  const kept = await goneStore(store, deps);
  // The demo world's token is published (README, fixtures/world.json): a store made without
  // --seed gets a random token of its own instead, shown once (the store keeps only its digest).
  const token = seedFile === undefined && !options.dryRun ? randomBytes(24).toString('base64url') : undefined;
  if (token !== undefined) world.Settings.ApiTokens = [token];
  if (options.dryRun) {
    await say(
      deps,
      `dry run: ${seedFile ?? 'the demo world'} is a valid world file; no store created at ${store}${kept ? `; a real one moves the sync memory ${kept} aside` : ''}`,
    );
  } else {
    // The memory first: if it cannot move, nothing is made.
    const aside = kept && join(dirname(kept), randomBytes(8).toString('hex'));
    const how = 'nothing was created: let this user write its folder, then run examctl local init again';
    const stuck = (error: unknown) =>
      Promise.reject(
        new UsageError(`cannot move the sync memory ${kept} aside: ${describeSystemError(error)}; ${how}`),
      );
    if (aside) await rename(kept, aside).catch(stuck);
    const lockTimeoutMs = lockTimeoutFromEnv(deps.env);
    const made = await createStore(store, worldToChanges(world), {
      force: force ?? false,
      indexer: ENGINE_INDEXER,
      lockTimeoutMs,
    }).catch(async (error: unknown) => {
      if (aside) await rename(aside, kept);
      throw error;
    });
    await say(deps, `${made} local store at ${store} from ${seedFile ?? DEMO_WORLD}`);
    if (aside)
      await say(
        deps,
        `note: the sync memory ${kept} names a store made here before: moved to ${aside} (a store moved from here takes it in)`,
      );
    if (token !== undefined && !options.json) {
      await say(deps, `API token of this store, shown only now (the store keeps its digest): ${token}`);
      await say(deps, 'use it as EXAMCTL_TOKEN with examctl local serve');
    }
  }
  if (options.json) {
    const document = {
      command: 'local init',
      target: { kind: 'local', store },
      dryRun: options.dryRun ?? false,
      seed,
      token,
    };
    await printJson(deps, document);
  }
  return 0;
}
