/**
 * `examctl local init`'s decisions (docs/cli.md, "The local store"): a new store from a world file, the sync memory
 * of a store made there before moved aside first, a fresh token for a store of the demo world; what it says and its
 * --json document.
 */
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
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
import type { CommandDeps } from './command-deps.js';
import { assertTrustedStore, goneStore, localStorePath, namedStorePath } from './target.js';

/** What `local init` did (or, on a dry run, would do). */
export interface LocalInit {
  store: string;
  /** The world file read (the bundled demo world without --seed). */
  seed: string;
  /** --seed as given; undefined: the demo world. */
  seedFile: string | undefined;
  dryRun: boolean;
  /** The sync memory of a store made at `store` before (moved aside by a real run). */
  kept: string | undefined;
  /** Where a real run moved `kept`. */
  aside?: string;
  /** createStore's word for it: `created` or `replaced`. */
  made?: string;
  /** The store's API token, made here: only for a store of the demo world, whose token is published. */
  token: string | undefined;
}

/** Makes the store (not on a dry run); the memory is moved first, so a memory that cannot move leaves nothing made. */
export async function initLocalStore(
  seedFile: string | undefined,
  force: boolean,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<LocalInit> {
  await assertTrustedStore(namedStorePath(options, deps), deps);
  const store = await localStorePath(options, deps);
  const seed = seedFile === undefined ? BUNDLED_WORLD_PATH : resolve(deps.cwd, seedFile);
  const world = await loadWorldFile(seed);
  const kept = await goneStore(store, deps);
  const dryRun = options.dryRun === true;
  const token = freshToken(seedFile, dryRun);
  if (token !== undefined) world.Settings.ApiTokens = [token];
  const init: LocalInit = { store, seed, seedFile, dryRun, kept, token };
  if (dryRun) return init;
  const aside = kept && join(dirname(kept), randomBytes(8).toString('hex'));
  const how = 'nothing was created: let this user write its folder, then run examctl local init again';
  const stuck = (error: unknown) =>
    Promise.reject(new UsageError(`cannot move the sync memory ${kept} aside: ${describeSystemError(error)}; ${how}`));
  if (aside) await rename(kept, aside).catch(stuck);
  const made = await createStore(store, worldToChanges(world), {
    force,
    indexer: ENGINE_INDEXER,
    lockTimeoutMs: lockTimeoutFromEnv(deps.env),
  }).catch(async (error: unknown) => {
    if (aside) await rename(aside, kept);
    throw error;
  });
  return { ...init, made, ...(aside ? { aside } : {}) };
}

/**
 * The demo world's token is published (README, fixtures/world.json): a store made without --seed gets a random
 * token of its own instead, shown once (the store keeps only its digest). A dry run makes none.
 */
export function freshToken(seedFile: string | undefined, dryRun: boolean): string | undefined {
  return seedFile === undefined && !dryRun ? randomBytes(24).toString('base64url') : undefined;
}

/** What `local init` says on stderr; the token only without --json (the document holds it). */
export function localInitLines(init: LocalInit, json: boolean): string[] {
  if (init.dryRun) {
    const moves = init.kept ? `; a real one moves the sync memory ${init.kept} aside` : '';
    return [
      `dry run: ${init.seedFile ?? 'the demo world'} is a valid world file; no store created at ${init.store}${moves}`,
    ];
  }
  const lines = [`${init.made} local store at ${init.store} from ${init.seedFile ?? DEMO_WORLD}`];
  if (init.aside)
    lines.push(
      `note: the sync memory ${init.kept} names a store made here before: moved to ${init.aside} (a store moved from here takes it in)`,
    );
  if (init.token !== undefined && !json)
    lines.push(
      `API token of this store, shown only now (the store keeps its digest): ${init.token}`,
      'use it as EXAMCTL_TOKEN with examctl local serve',
    );
  return lines;
}

/** `local init --json`'s document. */
export function localInitDocument(init: LocalInit) {
  const { store, dryRun, seed, token } = init;
  return { command: 'local init', target: { kind: 'local', store }, dryRun, seed, token };
}
