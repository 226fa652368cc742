/**
 * Opening the local target, and nothing more: world.ts and world-io.ts only when a store is created
 * or a world file read, so other runs never load zod (docs/domain-rules.md, "One definition per field").
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseJsonDocument } from '../input/json-document.js';
import { INPUT_LIMITS, scanJsonYielding } from '../system/json-scan.js';
import { cannotReadCode, cannotReadReason, decodeTextDocument } from '../input/text-source.js';
import type { World } from '../domain/world.js';
import { InputFileError, UsageError } from '../system/errors.js';
import { readShippedFile } from '../system/shipped-file.js';
import type { Clock } from './clock.js';
import { createLocalEngine, type LocalEngine } from './engine.js';
import { createStore, openStore, StoreExistsError, storeExists } from './store/index.js';
import { ENGINE_INDEXER } from './view.js';

export { clockFromEnv } from './clock.js';
export { lockTimeoutFromEnv } from '../system/lock.js';
export { readStoreInstance } from './store/store-instance.js';
export { readStoreHead } from './store/file-store.js';

/**
 * The bundled demo world. From src/engine/ (tests) and dist/engine/ (the built CLI) alike, the
 * package root is two levels up (in the one-file executable, an asset: loadWorldFile reads it).
 */
export const BUNDLED_WORLD_PATH = fileURLToPath(new URL('../../fixtures/world.json', import.meta.url));

/** Reads and validates a world file; every problem names its path in the world. */
export async function loadWorldFile(file: string): Promise<World> {
  let bytes: Buffer;
  try {
    // 256 MiB: read whole, far below V8's longest string.
    bytes = await readShippedFile(file, 256 * 2 ** 20);
  } catch (error) {
    const code = cannotReadCode(error);
    throw new UsageError(`cannot read world file ${file}: ${cannotReadReason(error)}`, { cause: error, code });
  }
  // `local export > world.json` in PowerShell 5.1 writes UTF-16: read like any text input.
  const text = decodeTextDocument(bytes, file);
  // Ctrl-C stops a long one at once (the parse below holds the event loop).
  await scanJsonYielding(text, INPUT_LIMITS);
  const json = parseJsonDocument(text, file);
  const { parseWorld } = await import('../domain/world.js');
  const parsed = parseWorld(json);
  if (!parsed.ok) {
    const shown = parsed.errors.slice(0, 20);
    const more = parsed.errors.length > shown.length ? `\n  ... and ${parsed.errors.length - shown.length} more` : '';
    throw new InputFileError(file, undefined, `not a valid world file:\n  ${shown.join('\n  ')}${more}`);
  }
  return parsed.world;
}

export interface OpenLocalTargetOptions {
  /** Plan only: open the store read-only; with no store, create nothing and return null. */
  dryRun?: boolean;
  now?: Clock;
  /** Called with the store path when a missing store was created from the bundled world. */
  onCreated?: (location: string) => void;
  /** How long a write waits for the store's lock (ms); the caller resolves it (lockTimeoutFromEnv). */
  lockTimeoutMs?: number;
}

/**
 * Creates the store at `storeDir` from the bundled demo world when none exists yet
 * (docs/cli-contract.md, "Targets"), reporting creation through `onCreated`; returns its absolute path.
 * Two processes may race to create it: the loser uses the winner's store.
 */
export async function ensureLocalStore(storeDir: string, onCreated?: (location: string) => void): Promise<string> {
  const location = resolve(storeDir);
  if (await storeExists(location)) return location;
  const world = await loadWorldFile(BUNDLED_WORLD_PATH);
  const { worldToChanges } = await import('./world-io.js');
  try {
    await createStore(location, worldToChanges(world), { indexer: ENGINE_INDEXER });
    onCreated?.(location);
  } catch (error) {
    if (!(error instanceof StoreExistsError)) throw error;
  }
  return location;
}

/**
 * Opens the local target. A store that does not exist yet is created from the bundled demo
 * world (docs/cli-contract.md, "Targets"), except in a dry run, which returns null: the caller then
 * validates only, and nothing is created.
 */
export async function openLocalTarget(
  storeDir: string,
  options: OpenLocalTargetOptions = {},
): Promise<LocalEngine | null> {
  if (options.dryRun && !(await storeExists(resolve(storeDir)))) return null;
  const location = await ensureLocalStore(storeDir, options.onCreated);
  const store = await openStore(location, {
    readOnly: options.dryRun === true,
    lockTimeoutMs: options.lockTimeoutMs,
    stopWhenReplaced: true,
  });
  return createLocalEngine(options.now === undefined ? { store } : { store, now: options.now });
}
