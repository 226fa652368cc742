import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { withTempDir } from './helpers.js';
import { summaryOf } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';

/**
 * A plan applied again sends nothing (docs/plan.md, "Apply"); its exit is where the plan's run stands now: an
 * apply killed part-way is refused (E2602) naming the run to resume, not exit 0 (a CI job retried would pass
 * with part of the plan unsent); once `runs resume` finished that run, applying again is exit 0 and says so.
 */

const USERS = 300;
const usersCsv = (users: number): string =>
  `ExternalId,FirstName,LastName,Email,Role\n${Array.from(
    { length: users },
    (_, i) => `u-${String(i).padStart(4, '0')},Ada,Ng${i},u${i}@example.test,Candidate`,
  ).join('\n')}\n`;

/** A local store, and p.json: the plan that creates the file's users. */
async function planned(dir: string, users = USERS): Promise<{ env: Record<string, string>; store: string[] }> {
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
  const store = ['--store', join(dir, 'store')];
  expect((await examctl([...store, 'local', 'init'], dir, env)).code).toBe(0);
  await writeFile(join(dir, 'users.csv'), usersCsv(users));
  const made = await examctl(
    [...store, 'user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'p.json'],
    dir,
    env,
  );
  expect(made.code, made.stderr).toBe(0);
  return { env, store };
}

describe('a plan applied again', () => {
  it('after an apply killed part-way: E2602 naming the run; after its resume finished: exit 0, the run named', () =>
    withTempDir(async (dir) => {
      const { env, store } = await planned(dir);
      const stopped = await examctl([...store, 'apply', 'p.json'], dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
      });
      expect(stopped.signal).toBe('SIGKILL');
      const run = /run (\S+) \(examctl runs show/.exec(stopped.stderr)?.[1];
      expect(run).toBeDefined();

      const again = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(again.code).toBe(2);
      expectCoded(again.stderr, 'E2602', '(p.json)', `examctl runs resume ${run}`);

      expect((await examctl(['runs', 'resume', run!], dir, env)).code).toBe(0);
      const done = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toContain(`(run ${run}: `);
      expect(summaryOf(done.stderr)).toMatchObject({ ok: USERS, partial: 0, failed: 0, skipped: 0 });
      expect(done.stderr).not.toContain('did not finish');
    }));

  it('while another apply of it has begun and has no run yet (two jobs at once): E2602, nothing sent', () =>
    withTempDir(async (dir) => {
      const { env, store } = await planned(dir);
      const { id } = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')) as { id: string };
      // What the other apply has recorded between taking the plan and its run's journal: when, no run yet.
      await mkdir(join(dir, 'runs', 'plans', id), { recursive: true });
      await writeFile(join(dir, 'runs', 'plans', id, 'applied.json'), '{"started":"2026-11-21T10:00:00.000Z"}\n');
      const second = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(second.code).toBe(2);
      // No run recorded yet: the time the other apply began, and where to look.
      expectCoded(second.stderr, 'E2602', '(p.json)', '2026-11-21T10:00:00.000Z', 'examctl runs list');
      const listed = await examctl(['runs', 'list', '--json'], dir, env);
      expect(listed.stdout).not.toContain('user sync');
    }));

  it('after a restore to before its apply: E2601, nothing sent; after a later run wrote on: exit 0', () =>
    withTempDir(async (dir) => {
      const { env, store } = await planned(dir);
      await cp(join(dir, 'store'), join(dir, 'backup'), { recursive: true });
      expect((await examctl([...store, 'apply', 'p.json'], dir, env)).code).toBe(0);
      // The store restored to the backup: the plan's users are gone, so "applied already, exit 0" would be false.
      await rm(join(dir, 'store'), { recursive: true });
      await cp(join(dir, 'backup'), join(dir, 'store'), { recursive: true });
      const restored = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(restored.code).toBe(2);
      expectCoded(restored.stderr, 'E2601', '(p.json)', join(dir, 'store'));
      expect(restored.stderr).not.toContain('was applied already, at');
    }));

  it('after another run wrote to the store since its apply: applied already, exit 0', () =>
    withTempDir(async (dir) => {
      const { env, store } = await planned(dir);
      expect((await examctl([...store, 'apply', 'p.json'], dir, env)).code).toBe(0);
      await writeFile(
        join(dir, 'more.csv'),
        'ExternalId,FirstName,LastName,Email,Role\nv-1,Bo,Li,v1@example.test,Candidate\n',
      );
      expect((await examctl([...store, 'user', 'sync', '--file', 'more.csv'], dir, env)).code).toBe(0);
      const again = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('was applied already, at');
    }));

  it("says its run's counts as every summary does (1,000 ok)", () =>
    withTempDir(async (dir) => {
      const { env, store } = await planned(dir, 1000);
      expect((await examctl([...store, 'apply', 'p.json'], dir, env)).code).toBe(0);
      const again = await examctl([...store, 'apply', 'p.json'], dir, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(': 1,000 ok, 0 partial, 0 failed, 0 skipped): nothing was sent');
    }));
});
