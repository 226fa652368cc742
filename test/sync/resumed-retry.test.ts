import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, examctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * A morning retry (a run report fed back, docs/ci.md "Fixing a failed send") killed once it put
 * its first intent on record, then `runs resume`: the resumed run is not "a later run" than its
 * own rows (trial32 F02: each row was refused naming the run itself, and its advice looped).
 */
describe('runs resume of a killed retry', () => {
  it('finishes it: the rows go, none refused as older than the run that is resumed', () =>
    withTempDir(async (dir) => {
      const env = {
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        EXAMCTL_SYNC_DIR: join(dir, 'synced'),
        EXAMCTL_STORE: join(dir, 'store'),
      };
      const users = readFileSync(join(ROOT, 'fixtures/users.csv'), 'utf8');
      const late = [1, 2].map(
        (n) => `stu-late-${n},New,Joiner,stu-late-${n}(at)example.test,stu-late-${n},Candidate,H-SOUTH,cohort-2026,,`,
      );
      writeFileSync(join(dir, 'tue.csv'), `${users.trimEnd()}\n${late.join('\n')}\n`);
      const nightly = ['user', 'sync', '--population', 'students', '--changed-only', '--target', 'local', '--yes'];
      expect((await examctl([...nightly, '--file', join(ROOT, 'fixtures/users.csv')], dir, env)).code).toBe(0);
      expect((await examctl([...nightly, '--file', 'tue.csv', '--report', 'n2.csv'], dir, env)).code).toBe(1);
      writeFileSync(join(dir, 'fixed.csv'), readFileSync(join(dir, 'n2.csv'), 'utf8').replaceAll('(at)', '@'));
      const retry = [
        'user',
        'sync',
        '--file',
        'fixed.csv',
        '--only-failed',
        '--population',
        'students',
        '--target',
        'local',
        '--yes',
        '--concurrency',
        '1',
      ];
      const killed = await examctl(retry, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: 'sent:1:SIGKILL' });
      expect(killed.signal).toBe('SIGKILL');
      const resumed = await examctl(['runs', 'resume', '--yes', '--json'], dir, env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).not.toContain('a later run');
      const items = (JSON.parse(resumed.stdout) as { items: { id: string; status: string }[] }).items;
      expect(items.map((item) => [item.id, item.status])).toEqual([
        ['stu-late-1', 'ok'],
        ['stu-late-2', 'ok'],
      ]);
    }));
});

describe('a night that found the local store older than its memory, stopped short (trial34 F03)', () => {
  it('leaves that verdict for the next night, which sends what the stopped one did not', () =>
    withTempDir(async (dir) => {
      const env = {
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        EXAMCTL_SYNC_DIR: join(dir, 'synced'),
        EXAMCTL_STORE: join(dir, 'store'),
      };
      const header = 'ExternalId,FirstName,LastName,Email,UserName,Role';
      const users = (mail: string) =>
        `${header}\n${Array.from({ length: 30 }, (_, i) => `u-${i},U,L${i},u${i}@${mail},u-${i},Candidate`).join('\n')}\n`;
      writeFileSync(join(dir, 'old.csv'), users('old.example.test'));
      writeFileSync(join(dir, 'new.csv'), users('new.example.test'));
      const nightly = (file: string) => [
        'user',
        'sync',
        '--file',
        file,
        '--changed-only',
        '--target',
        'local',
        '--yes',
        '--json',
        '--concurrency',
        '1',
      ];
      expect((await examctl(nightly('old.csv'), dir, env)).code).toBe(0);
      cpSync(join(dir, 'store'), join(dir, 'store.bak'), { recursive: true });
      expect((await examctl(nightly('new.csv'), dir, env)).code).toBe(0);
      rmSync(join(dir, 'store'), { recursive: true, force: true });
      cpSync(join(dir, 'store.bak'), join(dir, 'store'), { recursive: true });
      // A runner lost mid-night (killed at a marker), its run not resumed: the next night is the recovery (docs/ci.md).
      const stopped = await examctl(nightly('new.csv'), dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:2:SIGKILL',
      });
      expect(stopped.signal).toBe('SIGKILL');
      const next = await examctl(nightly('new.csv'), dir, env);
      expect(next.code, next.stderr).toBe(0);
      // The stopped night distrusted the memory's entries at once: the next sends what it did not.
      expect(stopped.stderr).toContain('the local store is back at where run');
      expect(next.stderr).not.toContain('unchanged (not sent)');
      const world = JSON.parse((await examctl(['local', 'export', '--store', 'store'], dir, env)).stdout) as {
        Users: { ExternalId: string; Email?: string }[];
      };
      expect(
        world.Users.filter(
          (user) => user.ExternalId.startsWith('u-') && !user.Email?.endsWith('@new.example.test'),
        ).map((user) => user.ExternalId),
      ).toEqual([]);
    }));
});
