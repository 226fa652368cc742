import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** Ten users; rows 3 and 5 (u-2, u-4) have an invalid Email: with --max-errors 1 the run stops at u-2. */
async function tenUsers(dir: string): Promise<string> {
  const rows = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (let i = 0; i < 10; i++) {
    const email = i === 2 || i === 4 ? 'no-at-sign' : `u-${i}@example.test`;
    rows.push(`u-${i},First${i},Last${i},${email},u-${i},Candidate`);
  }
  await writeFile(join(dir, 'users.csv'), `${rows.join('\n')}\n`);
  return 'users.csv';
}

describe('--max-errors: an invalid row the run never reached is skipped, in every count', () => {
  it('a real run: the actions count what the statuses count (1 failed, 7 skipped)', () =>
    withTempDir(async (dir) => {
      const file = await tenUsers(dir);
      const io = testDeps(dir);
      const code = await runCli(
        ['--store', join(dir, 'store'), 'user', 'sync', '--file', file, '--max-errors', '1', '--json'],
        io.deps,
      );
      expect(code).toBe(1);
      const { summary, items } = JSON.parse(io.stdout.text);
      expect(summary).toMatchObject({ total: 10, ok: 2, failed: 1, skipped: 7 });
      expect(summary.actions).toEqual({ create: 2, invalid: 1, skipped: 7 });
      expect(items.filter((item: { status: string }) => item.status === 'skipped')).toHaveLength(7);
    }));

  it("a dry run's plan line, --json plan and plan file count u-4 skipped, as its status says", () =>
    withTempDir(async (dir) => {
      const file = await tenUsers(dir);
      expect(await runCli(['--store', join(dir, 'store'), 'local', 'init'], testDeps(dir).deps)).toBe(0);
      const io = testDeps(dir);
      const args = ['--store', join(dir, 'store'), 'user', 'sync', '--file', file, '--max-errors', '1', '--dry-run'];
      expect(await runCli([...args, '--json', '--plan-out', 'p.json'], io.deps)).toBe(1);
      const doc = JSON.parse(io.stdout.text);
      expect(doc.summary).toMatchObject({ failed: 1, skipped: 7 });
      expect(doc.plan.invalid).toBe(1);
      const plan = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8'));
      expect(plan.counts).toMatchObject({ invalid: 1, skipped: 7 });
      const u4 = plan.items.find((item: { id: string }) => item.id === 'u-4');
      expect(u4.action).toBe('skipped');
      const terminal = testDeps(dir);
      await runCli(args, terminal.deps);
      expect(terminal.stderr.text).toMatch(/plan: .*1 invalid/);
      expect(terminal.stderr.text).not.toMatch(/plan: .*2 invalid/);
    }));
});
