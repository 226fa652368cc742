import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';
import { deltaEndIds } from '../support/end-store.js';

/**
 * A state service that keeps a store cut short and answers 200 (docs/sync.md, "A state service"):
 * the store is sent once more, then what the address held is put back (a batch or delta removed),
 * so no later night is refused for it; refusals name the address that gave them (trial15).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
const server = stateServerPerTest();
const ids = deltaEndIds('ct');

function writeUsers(dir: string, list: readonly string[]): void {
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...list.map((id) => `${id},First,Last ${id},${id}@example.test,name-${id},Candidate,`)].join('\n')}\n`,
  );
}

async function cli(dir: string, argv: string[], env: Record<string, string>) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const local = ['--target', 'local', '--store', 'store'];
const sync = (dir: string, env: Record<string, string>, ...flags: string[]) =>
  cli(
    dir,
    ['user', 'sync', '--file', 'users.csv', ...local, '--changed-only', '--disable-missing', '--json', ...flags],
    env,
  );

/** The next `times` POSTs to a path ending in `end` are kept cut in half: the service answers 200, its read-back sees the cut. */
function cutPosts(end: string, times: number): void {
  let posted: string | undefined;
  server.onRequest((request) => {
    if (request.method === 'POST' && request.path.endsWith(end) && times-- > 0) posted = request.path;
    else if (request.method === 'GET' && request.path === posted) {
      server.states.set(posted, server.states.get(posted)!.slice(0, server.states.get(posted)!.length >> 1));
      posted = undefined;
    }
  });
}

/** `synced show` loads the memory (a damaged batch, delta or document is exit 2). */
async function loads(dir: string, env: Record<string, string>): Promise<void> {
  const shown = await cli(dir, ['synced', 'show'], env);
  expect(shown.code, shown.stderr).toBe(0);
}

/** Night 1 stores the memory at `name`; tonight's file adds a joiner. */
async function firstNight(dir: string, name: string) {
  const address = server.address(name);
  const env = { EXAMCTL_SYNC_DIR: address };
  writeUsers(dir, ids);
  expect((await sync(dir, env)).code).toBe(0);
  writeUsers(dir, [...ids, 'ct-new']);
  return { address, env };
}

describe('a store the service keeps cut short', () => {
  it('the first batch, cut every time, its put-back too: removed, nothing sent, and the next night loads the memory (was exit 2 on every later night)', () =>
    withTempDir(async (dir) => {
      const { address, env } = await firstNight(dir, 'b');
      cutPosts('-intents-0', 3);
      const cut = await sync(dir, env);
      expect(cut.code, cut.stderr).toBe(3);
      // What became of the document sent twice, and that no record went.
      expectCoded(cut.stderr, 'E3050', `${address}-intents-0`, 'POST', 'removed, not put back', 'nothing was sent');
      expect(server.states.has('/state/b-intents-0')).toBe(false);
      server.onRequest(undefined);
      await loads(dir, env);
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout).items.find((item: { id: string }) => item.id === 'ct-new')).toMatchObject({
        status: 'ok',
        action: 'created',
      });
    }));

  it("the end's delta cut twice and its removal refused: the next night reads it as not stored and takes in the run's intents (was exit 2 on every later night)", () =>
    withTempDir(async (dir) => {
      const { address, env } = await firstNight(dir, 'd');
      cutPosts('-delta-1', 2);
      server.fail('DELETE -delta-', 500, 6);
      const cut = await sync(dir, env);
      expect(cut.code, cut.stderr).toBe(3);
      expectCoded(cut.stderr, 'E3050', `${address}-delta-1`, 'POST', 'left there, damaged', 'delete it on the service');
      expect(server.states.get('/state/d-delta-1')).toBeDefined();
      server.onRequest(undefined);
      await loads(dir, env);
      const next = await sync(dir, { ...env, EXAMCTL_RUNS_DIR: join(dir, 'fresh-runner') }, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain('wrote ahead and never stored as its end');
      expect(
        (JSON.parse(next.stdout) as { items: { status: string }[] }).items.every((item) => item.status === 'ok'),
      ).toBe(true);
    }));

  it('the whole memory (synced import) cut twice: what the service held is put back; cut every time: kept whole in a file that synced import puts there (was the memory lost)', () =>
    withTempDir(async (dir) => {
      const { address, env } = await firstNight(dir, 'w');
      expect((await cli(dir, ['synced', 'export', ...local, '--out', 'e.json'], env)).code).toBe(0);
      cutPosts('/state/w', 2);
      const twice = await cli(dir, ['synced', 'import', 'e.json', '--force', ...local], env);
      expect(twice.code).toBe(3);
      expectCoded(twice.stderr, 'E3050', address, 'POST', 'what it held before is put back');
      await loads(dir, env);
      cutPosts('/state/w', 9);
      const always = await cli(dir, ['synced', 'import', 'e.json', '--force', ...local], env);
      expect(always.code).toBe(3);
      const file =
        /nor what it held put back\): this run's memory is in (\S+); once the service stores again, examctl synced import \1 --sync-dir (\S+) --force/.exec(
          always.stderr,
        );
      expect(file?.[2], always.stderr).toBe(address);
      server.onRequest(undefined);
      expect((await cli(dir, ['synced', 'show'], env)).code).toBe(2);
      expect((await cli(dir, ['synced', 'import', file![1]!, '--force', ...local], env)).code).toBe(0);
      const next = await sync(dir, env, '--require-memory');
      expect(next.code, next.stderr).toBe(0);
    }));
});

describe('what a refusal names', () => {
  it('a refused delta is named as the delta; a forget whose intents could not be removed says the memory is forgotten', () =>
    withTempDir(async (dir) => {
      const { address, env } = await firstNight(dir, 'f');
      server.fail('POST -delta-', 409, 1);
      const refused = await sync(dir, env);
      expect(refused.code).toBe(3);
      expectCoded(refused.stderr, 'E3050', `${address}-delta-1`, 'POST', '409');
      server.fail('DELETE -intents-', 500, 3);
      const forgot = await cli(dir, ['synced', 'forget', ...local], env);
      expect(forgot.code).toBe(3);
      expectCoded(forgot.stderr, 'E3000', `${address} is forgotten`, `${address}-intents-0`, 'DELETE with 500');
      expect((await cli(dir, ['synced', 'forget', ...local], env)).code).toBe(0);
      expect([...server.states.keys()]).toEqual([]);
    }));
});
