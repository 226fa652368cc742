import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { openStore } from '../../src/engine/store/index.js';
import { readStoreHead } from '../../src/engine/store/file-store.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/*
 * The store directory replaced while `local serve` runs (docs/store.md, "A directory replaced under
 * a writer"): what is served and written is the store at the path, never the files held open.
 */
let dir: string;
let server: LocalServer | undefined;
let client: ReturnType<typeof createRemoteClient> | undefined;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-serve-replaced-'));
});

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

const user = (id: string) => ({
  ExternalId: id,
  FirstName: 'Ann',
  LastName: 'Lee',
  Email: `${id}@example.test`,
  Role: 'Candidate' as const,
  Hierarchies: [{ ExternalId: 'H-NORTH' }],
});

/** A copy of the store as a backup taken while no one writes: its LOCK (which the lease may remove meanwhile) left out. */
async function backUp(store: string, to: string): Promise<void> {
  await fs.cp(store, to, {
    recursive: true,
    preserveTimestamps: true,
    filter: (from) => path.basename(from) !== 'LOCK',
  });
}

const restores = {
  'rm -rf, then cp -a': async (store: string, backup: string) => {
    await fs.rm(store, { recursive: true });
    await fs.cp(backup, store, { recursive: true, preserveTimestamps: true });
  },
  'mv aside, then cp -a': async (store: string, backup: string) => {
    await fs.rename(store, `${store}.old`);
    await fs.cp(backup, store, { recursive: true, preserveTimestamps: true });
  },
};

describe('a store directory replaced under local serve', () => {
  it.each(Object.entries(restores))('%s: the restored store is served, and a write lands in it', async (_, restore) => {
    const store = path.join(dir, 'store');
    const backup = path.join(dir, 'backup');
    server = await serveLocalStore({ storeDir: store });
    client = createRemoteClient({ baseUrl: server.url, token: 'dev-token' });
    expect((await client.upsertUser(user('u-before'))).status).toBe(200);
    await backUp(store, backup);
    expect((await client.upsertUser(user('u-undone'))).status).toBe(200);
    await restore(store, backup);

    // A read that must be current: the head of the store at the path, the backup's.
    const restored = await readStoreHead(store);
    expect((await client.storeHead!())?.head).toBe(restored.head);
    expect((await client.upsertUser(user('u-after'))).status).toBe(200);
    await client.close();
    await server.close();
    client = server = undefined;

    const reopened = await openStore(store);
    const users = reopened.state.get('users')!;
    expect([users.has('u-before'), users.has('u-undone'), users.has('u-after')]).toEqual([true, false, true]);
    expect((await reopened.standing!([restored.head])).holds).toEqual([restored.head]);
    await reopened.close();
  });
});

/*
 * `local serve`'s header `x-examctl-store-head` (docs/remote.md, "The local server"): a write's
 * answer carries the head its commit followed, any other answer the head of the state it stood on.
 */
/** A call's options that keep the heads its answers said. */
function told(): { heads: string[]; onHead(head: string): void } {
  const heads: string[] = [];
  return { heads, onHead: (head) => void heads.push(head) };
}

describe("local serve's answer head", () => {
  it('a write says the head before its change; a refusal and a read the head they stood on', async () => {
    const store = path.join(dir, 'store');
    server = await serveLocalStore({ storeDir: store });
    client = createRemoteClient({ baseUrl: server.url, token: 'dev-token' });
    const first = told();
    expect((await client.upsertUser(user('u-1'), first)).status).toBe(200);
    const before = (await readStoreHead(store, first.heads)).changed;
    expect(first.heads).toHaveLength(1);
    expect(before).toEqual(['users:u-1']);

    const second = told();
    expect((await client.upsertUser(user('u-2'), second)).status).toBe(200);
    const now = await readStoreHead(store);
    expect(second.heads[0]).not.toBe(first.heads[0]);
    expect((await readStoreHead(store, second.heads)).changed).toEqual(['users:u-2']);

    const refused = told();
    const bad = await client.upsertUser({ ...user('u-3'), Email: 'not an email' }, refused);
    expect(bad.envelope.Success).toBe(false);
    expect(refused.heads).toEqual([now.head]);

    const read = told();
    await client.getReviewSession('no-such-session', read);
    expect(read.heads).toEqual([now.head]);
  });

  it('a write says the head after the line that holds it; what wrote nothing says none (x-examctl-commit-head)', async () => {
    const store = path.join(dir, 'store');
    server = await serveLocalStore({ storeDir: store });
    client = createRemoteClient({ baseUrl: server.url, token: 'dev-token' });
    const commits: string[] = [];
    const onCommitted = (head: string) => void commits.push(head);
    expect((await client.upsertUser(user('u-1'), { onCommitted })).status).toBe(200);
    const after = await readStoreHead(store);
    expect(commits).toEqual([after.head]);
    // The same user again changes nothing; a refusal and a read write nothing.
    expect((await client.upsertUser(user('u-1'), { onCommitted })).action).toBe('unchanged');
    const bad = await client.upsertUser({ ...user('u-3'), Email: 'not an email' }, { onCommitted });
    expect(bad.envelope.Success).toBe(false);
    await client.getReviewSession('no-such-session', { onCommitted });
    expect(commits).toEqual([after.head]);
  });

  it('requests committed in one line each say the head that line followed', async () => {
    const store = path.join(dir, 'store');
    server = await serveLocalStore({ storeDir: store });
    client = createRemoteClient({ baseUrl: server.url, token: 'dev-token', concurrency: 8 });
    await client.upsertUser(user('u-0'));
    const ids = ['u-a', 'u-b', 'u-c', 'u-d', 'u-e', 'u-f'];
    const calls = ids.map(() => told());
    await Promise.all(ids.map((id, k) => client!.upsertUser(user(id), calls[k])));
    for (const [k, id] of ids.entries()) {
      const since = await readStoreHead(store, calls[k]!.heads);
      // Held by the store, and its own change came after it.
      expect(since.holds).toEqual(calls[k]!.heads);
      expect(since.changed).toContain(`users:${id}`);
      expect(since.changed).not.toContain('users:u-0');
    }
  });
});
