import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';
import { canonicalJson } from '../../src/sync/memory-lines.js';

/**
 * A night on a state service stores only what it added (docs/sync.md, "Stored as deltas"): its
 * delta beside the memory, the memory stored whole once the deltas outweigh half of it. Whatever
 * moment a run stops at (before its delta lands, or after it landed with its answer lost), the
 * next night on a fresh runner loads what the service holds and ends with the platform equal to
 * its file; a delta of an older document is ignored, a forged one refused.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const server = stateServerPerTest();

/** Users md-0 .. md-<count-1>, those `renamed` says with a last name naming `night`. */
function writeUsers(
  dir: string,
  count: number,
  night = 0,
  renamed: (i: number) => boolean = () => false,
): Map<string, string> {
  const last = new Map(
    Array.from({ length: count }, (_, i) => [`md-${i}`, renamed(i) ? `Night ${night} ${i}` : `Last ${i}`]),
  );
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...[...last].map(([id, name]) => `${id},First,${name},${id}@example.test,name-${id},Candidate`)].join('\n')}\n`,
  );
  return last;
}

async function night(dir: string, runner: string, env: Record<string, string> = {}) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_RUNS_DIR: join(dir, runner),
      EXAMCTL_SYNC_DIR: server.address('m'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
      ...env,
    },
  );
  const code = await runCli(
    [
      'user',
      'sync',
      '--file',
      'users.csv',
      '--target',
      'local',
      '--store',
      'store',
      '--changed-only',
      '--disable-missing',
      '--require-memory',
      '--json',
    ],
    io.deps,
  );
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** The platform's users by id: their last name. */
async function platform(dir: string): Promise<Map<string, string>> {
  const io = testDeps(dir, {}, {});
  expect(await runCli(['local', 'export', '--store', 'store'], io.deps)).toBe(0);
  return new Map(
    (JSON.parse(io.stdout.text) as { Users: { ExternalId: string; LastName: string }[] }).Users.filter((user) =>
      user.ExternalId.startsWith('md-'),
    ).map((user) => [user.ExternalId, user.LastName]),
  );
}

/** The POSTs of `run` by where they went: the memory's document, its deltas, its intents. */
async function posts(run: () => Promise<unknown>): Promise<Record<'memory' | 'delta' | 'intents', number>> {
  const from = server.requests.length;
  await run();
  const bytes = { memory: 0, delta: 0, intents: 0 };
  for (const request of server.requests.slice(from)) {
    if (request.method !== 'POST') continue;
    bytes[request.path.includes('-delta-') ? 'delta' : request.path.includes('-intents-') ? 'intents' : 'memory'] +=
      Buffer.byteLength(request.body);
  }
  return bytes;
}

/** The next night sends nothing: what the service holds is the whole memory. */
async function settled(dir: string, runner: string): Promise<void> {
  const after = await night(dir, runner);
  expect(after.code, after.stderr).toBe(0);
  expect(
    (JSON.parse(after.stdout) as { items: { action?: string }[] }).items.every((item) => item.action === 'unchanged'),
  ).toBe(true);
}

/** A delta's body with its checksum made again (as a service holding another document's delta would). */
function summed(delta: Record<string, unknown>): string {
  const { sha256: _sum, ...body } = delta;
  return JSON.stringify({ ...body, sha256: createHash('sha256').update(canonicalJson(body)).digest('hex') });
}

const first = (dir: string) => {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs-0'), EXAMCTL_SYNC_DIR: server.address('m') });
  return runCli(
    ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--changed-only', '--json'],
    io.deps,
  );
};

describe('stored as deltas', () => {
  it('a night stores its delta, not the memory; the memory is stored whole once the deltas outweigh half of it, older deltas left behind', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 200);
      expect(await first(dir)).toBe(0);
      const whole = server.states.get('/state/m')!;
      writeUsers(dir, 200, 1, (i) => i < 5);
      const quiet = await posts(() => night(dir, 'runs-1'));
      expect(quiet.memory).toBe(0);
      expect(quiet.delta).toBeGreaterThan(0);
      expect(quiet.delta).toBeLessThan(whole.length / 10);
      expect(server.states.get('/state/m')).toBe(whole);
      await settled(dir, 'runs-1b');
      // Nights renaming 40 users each: the deltas grow past half the memory, which is then stored whole.
      let stored = 0;
      let older = whole;
      let file = new Map<string, string>();
      for (let n = 2; n < 12 && stored === 0; n++) {
        older = server.states.get('/state/m')!;
        file = writeUsers(dir, 200, n, (i) => i % 5 === n % 5);
        stored = (await posts(async () => expect((await night(dir, `runs-${n}`)).code).toBe(0))).memory;
        expect(await platform(dir)).toEqual(file);
      }
      expect(stored).toBeGreaterThan(0);
      expect(server.states.get('/state/m')).not.toBe(whole);
      // The older deltas are left: a service that serves the older document again (a restore, a
      // lagging replica) still has them, and the whole store's intents: nothing is lost (trial15 f03).
      expect(server.states.has('/state/m-delta-1')).toBe(true);
      server.states.set('/state/m', older);
      const restored = await night(dir, 'runs-restored');
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stderr).toContain('wrote ahead and never stored as its end');
      expect(await platform(dir)).toEqual(file);
      await settled(dir, 'runs-after');
    }));

  it('a run stopped before its delta landed, or after with its answer lost: the next night on a fresh runner ends with the platform equal to its file', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 300);
      expect(await first(dir)).toBe(0);
      // Before it lands: the store refused (after retries); the service holds the memory and what the run wrote ahead.
      writeUsers(dir, 300, 1, (i) => i < 10);
      server.fail('POST -delta-', 500, 3);
      const refused = await night(dir, 'runs-1');
      expect(refused.code).toBe(3);
      expectCoded(refused.stderr, 'E3050', '-delta-1', '500');
      let file = writeUsers(dir, 298, 2, (i) => i < 10 || i === 20);
      const next = await night(dir, 'runs-2');
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain('wrote ahead and never stored as its end');
      expect(await platform(dir)).toEqual(new Map([...file, ['md-298', 'Last 298'], ['md-299', 'Last 299']]));
      // After it landed, its answer never whole (a run gone at that moment): the delta is what the next night loads.
      file = writeUsers(dir, 298, 3, (i) => i < 3);
      server.drip('POST -delta-');
      const dripped = await night(dir, 'runs-3', { EXAMCTL_REQUEST_TIMEOUT_MS: '1000' });
      expect(dripped.code).toBe(3);
      expect(server.states.has('/state/m-delta-2')).toBe(true);
      expect(await platform(dir)).toEqual(new Map([...file, ['md-298', 'Last 298'], ['md-299', 'Last 299']]));
      await settled(dir, 'runs-4');
    }));

  it('a delta of another document is ignored; one that does not hold is exit 2 naming it, nothing sent', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 20);
      expect(await first(dir)).toBe(0);
      writeUsers(dir, 20, 1, (i) => i < 2);
      expect((await night(dir, 'runs-1')).code).toBe(0);
      const delta = JSON.parse(server.states.get('/state/m-delta-1')!) as Record<string, unknown>;
      // Named for another document: not this memory's, so not read (what it says is not taken in).
      server.states.set('/state/m-delta-1', summed({ ...delta, base: '0'.repeat(64) }));
      const other = await posts(() => night(dir, 'runs-2'));
      expect(other.delta).toBeGreaterThan(0);
      await settled(dir, 'runs-3');
      server.states.set(
        '/state/m-delta-1',
        JSON.stringify({
          ...(JSON.parse(server.states.get('/state/m-delta-1')!) as object),
          lines: { users: 'forged\n' },
        }),
      );
      writeUsers(dir, 20, 4, (i) => i < 2);
      const forged = await night(dir, 'runs-4');
      expect(forged.code).toBe(2);
      expectCoded(forged.stderr, 'E2507', `${server.address('m')}-delta-1`, 'delta');
      expect((await platform(dir)).get('md-0')).toBe('Night 1 0');
    }));
});
