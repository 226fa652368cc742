import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { createLocalEngine } from '../../src/engine/index.js';
import { openStore } from '../../src/engine/store/index.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { storeTokens } from '../../src/server/serve-local.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../durability/helpers.js';

/**
 * A first night through `local serve` records the start head it asks before its first write (docs/sync.md,
 * "Where the store stands"): the store restored under it to a copy taken partway, the next night
 * sends again what was acknowledged after the newest head the copy holds (that start head: the
 * night's one batch, what the copy holds of it too), as on a local store.
 */
const USERS = 60;
const COPY_AFTER = 50;

let server: RunningServer | undefined;
let closeStore: (() => Promise<void>) | undefined;
/** Questions the served store answered where it stands (`GET .../examctl/store`). */
let asked = 0;

afterEach(async () => {
  await server?.close();
  await closeStore?.();
  server = closeStore = undefined;
});

/** The store served at `port` (0: any), its upserts counted; `onUpsert` told each answered one's count. */
async function serve(store: string, port: number, onUpsert: (count: number) => void): Promise<number> {
  const opened = await openStore(store);
  const engine = createLocalEngine({ store: opened });
  closeStore = () => engine.close();
  let count = 0;
  const api: IntegrationApi = Object.assign(Object.create(engine) as IntegrationApi, {
    storeHead: (...args: Parameters<NonNullable<IntegrationApi['storeHead']>>) => {
      asked += 1;
      return engine.storeHead!(...args);
    },
    upsertUser: async (...args: Parameters<IntegrationApi['upsertUser']>) => {
      const answer = await engine.upsertUser(...args);
      onUpsert(++count);
      return answer;
    },
  });
  server = await startServer({ api, tokens: storeTokens(opened), port });
  return server.port;
}

async function cli(dir: string, argv: string[]) {
  const env = {
    EXAMCTL_TOKEN: 'dev-token',
    EXAMCTL_SYNC_DIR: join(dir, 'synced'),
    EXAMCTL_RUNS_DIR: join(dir, 'runs'),
  };
  const io = testDeps(dir, {}, env);
  const code = await runCli(argv, io.deps);
  return { code, stderr: io.stderr.text };
}

describe('a served first night, the store restored to a copy taken partway through it', () => {
  it("the next night sends again the users acknowledged after the copy's newest head", async () => {
    await withTempDir(async (dir) => {
      const store = join(dir, 'store');
      const init = await cli(dir, ['local', 'init', '--store', store, '--seed', join(ROOT, 'fixtures/world.json')]);
      expect(init.code).toBe(0);
      const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
      for (let n = 0; n < USERS; n++) lines.push(`u${n},F${n},Last,u${n}@example.test,u${n},Candidate`);
      writeFileSync(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
      const copy = (count: number) => {
        if (count === COPY_AFTER)
          cpSync(store, join(dir, 'partway'), { recursive: true, filter: (from) => !from.endsWith('LOCK') });
      };
      const port = await serve(store, 0, copy);
      const night = ['user', 'sync', '--file', 'users.csv', '--changed-only', '--allow-old-file', '--yes'];
      const remote = ['--target', 'remote', '--base-url', `http://127.0.0.1:${port}`, '--concurrency', '1'];
      const first = await cli(dir, [...night, ...remote]);
      expect(first.code, first.stderr).toBe(0);

      await server!.close();
      await closeStore!();
      rmSync(store, { recursive: true });
      cpSync(join(dir, 'partway'), store, { recursive: true });
      let sent = 0;
      await serve(store, port, (count) => (sent = count));
      const next = await cli(dir, [...night, ...remote]);
      expect(next.code, next.stderr).toBe(0);
      // All of the one batch: a user of it the store changed since that head may be another writer's change.
      expect(sent).toBe(USERS);
      expect(next.stderr).not.toContain('holds none');
      expect(next.stderr).toContain('is back at');
    });
  });
});

describe('the start head asked once a night', () => {
  it("a first night asks before its first write; the next takes the memory's question's answer, not a second", async () => {
    await withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect(
        (await cli(dir, ['local', 'init', '--store', store, '--seed', join(ROOT, 'fixtures/world.json')])).code,
      ).toBe(0);
      writeFileSync(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role\nu1,F,L,u1@example.test,u1,Candidate\n',
      );
      let sent = 0;
      const port = await serve(store, 0, (count) => (sent = count));
      const night = ['user', 'sync', '--file', 'users.csv', '--changed-only', '--yes'];
      const remote = ['--target', 'remote', '--base-url', `http://127.0.0.1:${port}`];
      const asksOfNight = async (): Promise<number> => {
        const before = asked;
        const run = await cli(dir, [...night, ...remote]);
        expect(run.code, run.stderr).toBe(0);
        return asked - before;
      };
      // The first: the run's question, then the head it ends at (the memory's, after the run).
      expect(await asksOfNight()).toBe(2);
      expect(sent).toBe(1);
      // The second: the memory's question as it opens (it holds heads), then the end: the run asks nothing itself.
      expect(await asksOfNight()).toBe(2);
      expect(sent).toBe(1);
    });
  });
});
