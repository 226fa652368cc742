/**
 * `examctl local init` (docs/cli.md, "The local store"): a new store from a world file, the sync memory of a store
 * made there before moved aside first, a fresh token for a store of the demo world; what it says and its --json
 * document.
 */
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { say } from '../formats/terminal-text.js';
import { UsageError } from '../system/errors.js';
import { describeSystemError } from '../system/system-error-words.js';
import {
  BUNDLED_WORLD_PATH,
  ENGINE_INDEXER,
  loadWorldFile,
  lockTimeoutFromEnv,
  worldToChanges,
} from '../engine/index.js';
import { createStore } from '../engine/store/index.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { DEMO_WORLD } from '../system/shipped-file.js';
import { printJson, type CommandDeps } from './command-deps.js';
import { assertTrustedStore, goneStore, localStorePath, namedStorePath } from './target.js';

/** Makes the store (not on a dry run); the memory is moved first, so a memory that cannot move leaves nothing made. */
export async function initLocalStore(
  seedFile: string | undefined,
  force: boolean,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<void> {
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
    const aside = kept && join(dirname(kept), randomBytes(8).toString('hex'));
    const how = 'nothing was created: let this user write its folder, then run examctl local init again';
    const stuck = (error: unknown) =>
      Promise.reject(
        new UsageError(`cannot move the sync memory ${kept} aside: ${describeSystemError(error)}; ${how}`),
      );
    if (aside) await rename(kept, aside).catch(stuck);
    const made = await createStore(store, worldToChanges(world), {
      force,
      indexer: ENGINE_INDEXER,
      lockTimeoutMs: lockTimeoutFromEnv(deps.env),
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
    const dryRun = options.dryRun ?? false;
    await printJson(deps, { command: 'local init', target: { kind: 'local', store }, dryRun, seed, token });
  }
}
