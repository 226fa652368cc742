import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, ensureBuilt, examctl, startExamctl } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';

const FIXTURES = join(ROOT, 'fixtures');

function inTempDir(run: (dir: string) => Promise<void>): Promise<void> {
  return withTempDir(run, 'examctl-e2e-');
}

beforeAll(ensureBuilt, 180_000);

describe('examctl binary', () => {
  it('--help lists the commands and exits 0; --version prints the package version', async () => {
    await inTempDir(async (dir) => {
      const help = await examctl(['--help'], dir);
      expect(help.code).toBe(0);
      for (const command of ['schedule', 'user', 'collection', 'invigilators', 'review-session', 'local']) expect(help.stdout).toContain(command);
      const version = await examctl(['--version'], dir);
      expect(version.code).toBe(0);
      const pkg = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })).default as { version: string };
      expect(version.stdout.trim()).toBe(pkg.version);
      const sub = await examctl(['schedule', 'push', '--help'], dir);
      expect(sub.stdout).toContain('--assessment');
    });
  });

  it('a dry run of a shipped fixture prints one JSON report and creates no store', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(['user', 'sync', '--file', join(FIXTURES, 'users-with-errors.csv'), '--dry-run', '--json'], dir);
      expect(run.code).toBe(1);
      const doc = JSON.parse(run.stdout);
      expect(doc.dryRun).toBe(true);
      expect(doc.summary).toEqual({ total: 5, ok: 2, partial: 0, failed: 3, skipped: 0 });
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
    });
  });

  it('a real push on a fresh store, then review-session show --json', async () => {
    await inTempDir(async (dir) => {
      const push = await examctl(['schedule', 'push', '--file', join(FIXTURES, 'sittings.csv'), '--json'], dir);
      expect(push.code).toBe(0);
      const doc = JSON.parse(push.stdout);
      expect(doc.target).toEqual({ kind: 'local', store: join(dir, '.examctl-store') });
      expect(doc.summary.ok).toBe(2);
      expect(push.stderr).toContain('created local store');
      const show = await examctl(['review-session', 'show', 'RS-MATH1-OCT', '--json'], dir);
      expect(show.code).toBe(0);
      expect(JSON.parse(show.stdout).ExternalId).toBe('RS-MATH1-OCT');
    });
  });

  it('a bad input file exits 2 naming file:line, with only the error document on stdout', async () => {
    await inTempDir(async (dir) => {
      await writeFile(join(dir, 'bad.json'), '[\n  {"ExternalId": "u-1", "FirstName": "A", "LastName": "B"},\n  {"ExternalId": \n');
      const run = await examctl(['user', 'sync', '--file', 'bad.json', '--json'], dir);
      expect(run.code).toBe(2);
      expectOnlyErrorDocument(run.stdout, 2);
      expect(run.stderr).toMatch(/^examctl: bad\.json:\d+: /);
    });
  });

  it('SIGINT: finishes in-flight work, writes the report with the rest skipped, exits 130', async () => {
    await inTempDir(async (dir) => {
      const rows = ['ExternalId,FirstName,LastName,Role'];
      // Large enough that the run is still sending when the signal lands, even on a loaded machine:
      // the signal goes at the first report chunk, and the run stops there, so the size costs little.
      for (let i = 0; i < 100_000; i++) rows.push(`u-${i},First,Last,Candidate`);
      await writeFile(join(dir, 'many.csv'), `${rows.join('\n')}\n`);
      const run = startExamctl(['user', 'sync', '--file', 'many.csv', '--json'], dir);
      // The first report chunk means sending is under way.
      run.child.stdout!.once('data', () => run.child.kill('SIGINT'));
      const { code, stdout, stderr } = await run.done;
      expect(code, stderr).toBe(130);
      const doc = JSON.parse(stdout);
      expect(doc.summary.total).toBe(100_000);
      expect(doc.summary.skipped).toBeGreaterThan(0);
      expect(doc.summary.ok + doc.summary.skipped).toBe(100_000);
    });
  });
});
