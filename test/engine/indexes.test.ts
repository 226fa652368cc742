import { describe, it, expect } from 'vitest';
import type { UserRequest } from '../../src/domain/types.js';
import { worldToChanges } from '../../src/engine/world-io.js';
import { codes, demoEngine, demoWorld } from './helpers.js';

const user = (id: string, extra: Record<string, unknown> = {}) =>
  ({ ExternalId: id, FirstName: 'F', LastName: 'L', Role: 'Author', ...extra }) as unknown as UserRequest;

describe('secondary indexes follow the store (observe)', () => {
  it('sees users another process committed (UserName, ExternalId case, SynchronizationKey)', async () => {
    const { engine, store } = demoEngine();
    store.commitFromOtherProcess([
      {
        collection: 'users',
        key: 'ext-7',
        value: {
          ExternalId: 'ext-7',
          UserName: 'other.proc',
          FirstName: 'O',
          LastName: 'P',
          Role: 'Author',
          SynchronizationKey: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
        },
      },
    ]);
    expect(codes((await engine.upsertUser(user('u-1', { UserName: 'OTHER.PROC' }))).envelope.Errors)).toEqual([214]);
    expect(codes((await engine.upsertUser(user('EXT-7'))).envelope.Errors)).toEqual([233]);
    expect(
      codes(
        (await engine.upsertUser(user('u-2', { SynchronizationKey: 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE' }))).envelope
          .Errors,
      ),
    ).toEqual([232]);
  });

  it('rebuilds after a whole reload (another process compacted)', async () => {
    const { engine, store } = demoEngine();
    const world = demoWorld();
    world.Users.push({
      ExternalId: 'reloaded',
      UserName: 'reloaded.user',
      FirstName: 'R',
      LastName: 'U',
      Role: 'Author',
    });
    store.reload(worldToChanges(world));
    expect(codes((await engine.upsertUser(user('u-3', { UserName: 'reloaded.user' }))).envelope.Errors)).toEqual([214]);
  });

  it('a user deleted by another process frees its UserName', async () => {
    const { engine, store } = demoEngine();
    store.commitFromOtherProcess([{ collection: 'users', key: 'author-2', value: null }]);
    const result = await engine.upsertUser(user('u-4', { UserName: 'jdoe' }));
    expect(result.envelope.Success).toBe(true);
  });
});
