import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserRequest } from '../../src/domain/types.js';
import { apiTokenDigest, openLocalTarget, worldToChanges } from '../../src/engine/index.js';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { demoWorld, exportWorld, NOW } from './helpers.js';

const user = (id: string, extra: Record<string, unknown> = {}) =>
  ({ ExternalId: id, FirstName: 'F', LastName: 'L', Role: 'Author', ...extra }) as unknown as UserRequest;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-engine-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('engine over the real file store', () => {
  it('dry run without a store returns null and creates nothing', async () => {
    const location = join(dir, 'store');
    expect(await openLocalTarget(location, { dryRun: true })).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it('creates a missing store from the bundled world, tells the caller, and persists writes', async () => {
    const location = join(dir, 'store');
    const created: string[] = [];
    const engine = await openLocalTarget(location, { now: () => NOW, onCreated: (l) => created.push(l) });
    expect(engine).not.toBeNull();
    expect(created).toEqual([location]);
    const result = await engine!.upsertUser(user('u-file-1', { UserName: 'file.user' }));
    expect(result.action).toBe('created');
    await engine!.close();

    const reopened = await openLocalTarget(location, { now: () => NOW, onCreated: (l) => created.push(l) });
    expect(created).toHaveLength(1);
    const again = await reopened!.upsertUser(user('u-file-2', { UserName: 'FILE.USER' }));
    expect(again.envelope.Errors).toEqual([expect.objectContaining({ Code: 214 })]);
    const review = await reopened!.getReviewSession('RS-MATH1-OCT');
    expect(review.envelope.Success).toBe(true);
    await reopened!.close();
  });

  it('world -> createStore -> export equals the sorted world', async () => {
    const location = join(dir, 'store');
    const world = demoWorld();
    await createStore(location, worldToChanges(world));
    const store = await openStore(location, { readOnly: true });
    const exported = exportWorld(store.state);
    await store.close();
    expect(exported.Users.map((u) => u.ExternalId)).toEqual(world.Users.map((u) => u.ExternalId).sort());
    // API tokens are stored and exported as digests only.
    expect(exported.Settings).toEqual({ ...world.Settings, ApiTokens: world.Settings.ApiTokens.map(apiTokenDigest) });
    // Reloading the export gives the same store.
    const second = join(dir, 'second');
    await createStore(second, worldToChanges(exported));
    const reread = await openStore(second, { readOnly: true });
    expect(exportWorld(reread.state)).toEqual(exported);
    await reread.close();
  });

  it('a dry run over an existing store plans with every rule and writes nothing', async () => {
    const location = join(dir, 'store');
    await createStore(location, worldToChanges(demoWorld()));
    const plan = await openLocalTarget(location, { dryRun: true, now: () => NOW });
    expect((await plan!.upsertUser(user('u-dry', { UserName: 'dry.name' }), { dryRun: true })).action).toBe('created');
    const clash = await plan!.upsertUser(user('u-dry-2', { UserName: 'dry.name' }), { dryRun: true });
    expect(clash.envelope.Errors).toEqual([expect.objectContaining({ Code: 214 })]);
    await plan!.close();
    const store = await openStore(location, { readOnly: true });
    expect(store.state.get('users')!.has('u-dry')).toBe(false);
    await store.close();
  });

  it("two engines on one store see each other's users through the store", async () => {
    const location = join(dir, 'store');
    await createStore(location, worldToChanges(demoWorld()));
    const a = await openLocalTarget(location, { now: () => NOW });
    const b = await openLocalTarget(location, { now: () => NOW });
    expect((await a!.upsertUser(user('u-a', { UserName: 'shared.name' }))).envelope.Success).toBe(true);
    const fromB = await b!.upsertUser(user('u-b', { UserName: 'Shared.Name' }));
    expect(fromB.envelope.Errors).toEqual([expect.objectContaining({ Code: 214 })]);
    await a!.close();
    await b!.close();
  });
});
