import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { openStore } from '../../src/engine/store/index.js';
import { UsageError } from '../../src/system/errors.js';
import { serveLocalStore } from '../../src/server/index.js';
import { startServer } from '../../src/server/server.js';

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-serve-local-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('serveLocalStore', () => {
  it('creates a missing store from the demo world, serves it, and releases the store on close', async () => {
    const storeDir = path.join(dir, 'store');
    const created: string[] = [];
    const server = await serveLocalStore({ storeDir, onCreated: (location) => created.push(location) });
    expect(created).toEqual([storeDir]);
    expect(server.store).toBe(storeDir);
    const client = createRemoteClient({ baseUrl: server.url, token: 'dev-token' });
    const result = await client.getReviewSession('RS-MATH1-OCT');
    expect(result.envelope.Success).toBe(true);
    await client.close();
    await server.close();
    // the store's lock is released: another writer can transact at once
    const store = await openStore(storeDir, { lockTimeoutMs: 500 });
    await store.transact(() => ({ result: null, changes: [] }));
    await store.close();
  });

  it('turns a port in use into a UsageError naming it', async () => {
    const first = await startServer({ api: {} as never, tokens: () => [] });
    const error = await startServer({ api: {} as never, tokens: () => [], port: first.port }).catch((e: unknown) => e);
    await first.close();
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      code: 'E2000',
      message: expect.stringContaining(`127.0.0.1:${first.port}`),
      cause: { code: 'EADDRINUSE' },
    });
  });
});
