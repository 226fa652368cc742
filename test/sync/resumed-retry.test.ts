import { readFileSync, writeFileSync } from 'node:fs';
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
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_STORE: join(dir, 'store') };
      const users = readFileSync(join(ROOT, 'fixtures/users.csv'), 'utf8');
      const late = [1, 2].map((n) => `stu-late-${n},New,Joiner,stu-late-${n}(at)example.test,stu-late-${n},Candidate,H-SOUTH,cohort-2026,,`);
      writeFileSync(join(dir, 'tue.csv'), `${users.trimEnd()}\n${late.join('\n')}\n`);
      const nightly = ['user', 'sync', '--population', 'students', '--changed-only', '--target', 'local', '--yes'];
      expect((await examctl([...nightly, '--file', join(ROOT, 'fixtures/users.csv')], dir, env)).code).toBe(0);
      expect((await examctl([...nightly, '--file', 'tue.csv', '--report', 'n2.csv'], dir, env)).code).toBe(1);
      writeFileSync(join(dir, 'fixed.csv'), readFileSync(join(dir, 'n2.csv'), 'utf8').replaceAll('(at)', '@'));
      const retry = ['user', 'sync', '--file', 'fixed.csv', '--only-failed', '--population', 'students', '--target', 'local', '--yes', '--concurrency', '1'];
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
