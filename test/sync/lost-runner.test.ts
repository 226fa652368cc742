import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { examctl } from '../durability/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';

/**
 * A runner lost mid-night on a state service (docs/sync.md, "Written ahead"): night 1 is killed
 * (kill -9 at a marker, in the middle of its joiners) and its runs directory deleted; night 2, with
 * --require-memory, is not refused and ends with the platform equal to its file, field by field:
 * night 1's intents, written ahead, are taken as tentative (a joiner missing from night 2's file is
 * disabled, or answers 240 and never existed; a rename goes again; the leavers it never reached are
 * disabled).
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const server = stateServerPerTest();

/** Users `lr-<i>` for each i, with a last name that says which night renamed them. */
function writeUsers(
  dir: string,
  ids: readonly number[],
  renamed: (i: number) => boolean = () => false,
): Map<string, string> {
  const last = new Map(ids.map((i) => [`lr-${i}`, renamed(i) ? `Renamed ${i}` : `Last ${i}`]));
  writeFileSync(
    join(dir, 'users.csv'),
    `${[HEADER, ...[...last].map(([id, name]) => `${id},First,${name},${id}@example.test,name-${id},Candidate`)].join('\n')}\n`,
  );
  return last;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
const FLAGS = [
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
  '--max-disable',
  '100%',
  '--concurrency',
  '1',
];

async function cli(dir: string, argv: string[], env: Record<string, string>) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0', ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('a runner lost mid-night, its runs directory gone', () => {
  it('the next night takes in what the lost run wrote ahead and ends with the platform equal to the file', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_SYNC_DIR: server.address('lost') };
      writeUsers(dir, range(0, 40));
      const first = await cli(dir, [...FLAGS, '--json'], env);
      expect(first.code, first.stderr).toBe(0);

      // Night 1: 10 renamed, 20 unchanged, 20 joiners, 10 leavers; killed after its 35th outcome (5 joiners in).
      writeUsers(dir, [...range(0, 30), ...range(40, 60)], (i) => i < 10);
      const killed = await examctl([...FLAGS], dir, {
        ...env,
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:35:SIGKILL',
      });
      expect(killed.signal).toBe('SIGKILL');
      rmSync(join(dir, 'runs'), { recursive: true, force: true });

      // Night 2: night 1's joiners 50..59 are gone from the file, lr-20 renamed.
      const file = writeUsers(dir, [...range(0, 30), ...range(40, 50)], (i) => i < 10 || i === 20);
      const night = await cli(dir, [...FLAGS, '--require-memory', '--json'], env);
      expect(night.code, night.stderr).toBe(0);
      // The lock the killed run left is taken over (its process is gone from this host), what it wrote ahead taken in.
      expect(night.stderr).toContain('note: took over the lock of the sync memory');
      expect(night.stderr).toContain('holds what run ');
      expect(night.stderr).not.toContain('misses what');

      const exported = await cli(dir, ['local', 'export', '--store', 'store'], {});
      const users = (
        JSON.parse(exported.stdout) as {
          Users: {
            ExternalId: string;
            FirstName: string;
            LastName: string;
            Email: string;
            UserName: string;
            DisableLogin?: boolean;
          }[];
        }
      ).Users.filter((user) => user.ExternalId.startsWith('lr-'));
      const held = new Map(users.map((user) => [user.ExternalId, user]));
      for (const [id, last] of file) {
        expect(held.get(id), id).toMatchObject({
          FirstName: 'First',
          LastName: last,
          Email: `${id}@example.test`,
          UserName: `name-${id}`,
        });
        expect(held.get(id)?.DisableLogin === true, id).toBe(false);
      }
      // Everyone else examctl synced there is disabled (a tentative joiner that was never created is not there at all).
      for (const user of users) if (!file.has(user.ExternalId)) expect(user.DisableLogin, user.ExternalId).toBe(true);
      for (const i of range(30, 40)) expect(held.get(`lr-${i}`)?.DisableLogin, `lr-${i}`).toBe(true);

      // And the night after sends nothing: the memory is whole again.
      const after = await cli(dir, [...FLAGS, '--require-memory', '--json'], env);
      expect(after.code, after.stderr).toBe(0);
      expect(
        (JSON.parse(after.stdout) as { items: { action?: string }[] }).items.every(
          (item) => item.action === 'unchanged',
        ),
      ).toBe(true);
    }));
});
