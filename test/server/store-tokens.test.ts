import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiTokenDigest,
  BUNDLED_WORLD_PATH,
  createLocalEngine,
  loadWorldFile,
  worldToChanges,
} from '../../src/engine/index.js';
import { exportWorld } from '../engine/helpers.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { storeTokens } from '../../src/server/serve-local.js';

// The store keeps Settings.ApiTokens only as sha256 digests; the server compares the digest of
// the presented token against them. These tests go from a world file with a plain token,
// through the store and an export, to HTTP requests.

let dir: string;
const open: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-store-tokens-'));
});
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function serve(storeDir: string): Promise<RunningServer> {
  const store = await openStore(storeDir);
  open.push(store);
  const server = await startServer({ api: createLocalEngine({ store }), tokens: storeTokens(store) });
  open.push(server);
  return server;
}

async function statusWith(server: RunningServer, token: string): Promise<number> {
  const response = await fetch(`${server.url}/api/v1/integrations/external/review-sessions/RS-MATH1-OCT`, {
    headers: { authorization: `EAPI ${token}` },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('API tokens in the store', () => {
  it('are stored as digests only, and the plain token is still accepted', async () => {
    const storeDir = path.join(dir, 'a');
    await createStore(storeDir, worldToChanges(await loadWorldFile(BUNDLED_WORLD_PATH)));
    const store = await openStore(storeDir, { readOnly: true });
    expect(await storeTokens(store)()).toEqual([apiTokenDigest('dev-token')]);
    await store.close();
    // Not even inside the store's files.
    for (const name of await fs.readdir(storeDir)) {
      expect(await fs.readFile(path.join(storeDir, name), 'utf8')).not.toContain('"dev-token"');
    }

    const server = await serve(storeDir);
    expect(await statusWith(server, 'dev-token')).toBe(200);
    expect(await statusWith(server, 'dev-tokenX')).toBe(403);
    // The digest itself is not a token: knowing the stored value does not let anyone in.
    expect(await statusWith(server, apiTokenDigest('dev-token'))).toBe(403);
  });

  it('an exported world (digests) seeds a store that accepts the same tokens', async () => {
    const first = path.join(dir, 'first');
    const world = await loadWorldFile(BUNDLED_WORLD_PATH);
    world.Settings.ApiTokens = ['dev-token', 'second-token'];
    await createStore(first, worldToChanges(world));
    const store = await openStore(first, { readOnly: true });
    const exported = JSON.parse(JSON.stringify(exportWorld(store.state))) as typeof world;
    await store.close();
    expect(exported.Settings.ApiTokens.every((t) => t.startsWith('sha256:'))).toBe(true);

    const exportFile = path.join(dir, 'export.json');
    await fs.writeFile(exportFile, JSON.stringify(exported));
    const second = path.join(dir, 'second');
    await createStore(second, worldToChanges(await loadWorldFile(exportFile)));
    const server = await serve(second);
    expect(await statusWith(server, 'dev-token')).toBe(200);
    expect(await statusWith(server, 'second-token')).toBe(200);
    expect(await statusWith(server, 'nope')).toBe(403);
  });

  it('a store made by an earlier examctl (plain tokens in settings) keeps working', async () => {
    const storeDir = path.join(dir, 'old');
    const world = await loadWorldFile(BUNDLED_WORLD_PATH);
    const changes = worldToChanges(world).map((change) =>
      change.collection === 'settings' ? { ...change, value: { ...world.Settings, ApiTokens: ['old-plain'] } } : change,
    );
    await createStore(storeDir, changes);
    const server = await serve(storeDir);
    expect(await statusWith(server, 'old-plain')).toBe(200);
    expect(await statusWith(server, 'dev-token')).toBe(403);
  });

  it("a store replaced under the server (local init --force) takes the replaced world's token no more, not even once (trial26 F06)", async () => {
    const storeDir = path.join(dir, 'replaced');
    const world = await loadWorldFile(BUNDLED_WORLD_PATH);
    await createStore(
      storeDir,
      worldToChanges({ ...world, Settings: { ...world.Settings, ApiTokens: ['first-token'] } }),
    );
    const server = await serve(storeDir);
    expect(await statusWith(server, 'first-token')).toBe(200);
    await createStore(storeDir, worldToChanges(world), { force: true });
    expect(await statusWith(server, 'first-token')).toBe(403);
    expect(await statusWith(server, 'dev-token')).toBe(200);
  });
});
