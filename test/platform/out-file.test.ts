import { describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/** --out writes what stdout would get, itself: PowerShell 5.1's `>` would re-encode it as UTF-16. */
describe('--out <file> for documents and workbooks', () => {
  it('template -o xlsx --out writes the workbook (a zip), nothing on stdout, even with stdout a terminal', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir, { stdoutIsTTY: true });
      expect(await runCli(['template', 'users', '-o', 'xlsx', '--out', 'users.xlsx'], io.deps)).toBe(0);
      const bytes = await readFile(join(dir, 'users.xlsx'));
      expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
      expect(io.stdout.text).toBe('');
      expect((await readdir(dir)).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
    }));

  it('template csv and schema --out write the same text stdout gets', () =>
    withTempDir(async (dir) => {
      const plain = testDeps(dir);
      expect(await runCli(['schema', 'users'], plain.deps)).toBe(0);
      const io = testDeps(dir);
      expect(await runCli(['schema', 'users', '--out', 'users.schema.json'], io.deps)).toBe(0);
      expect(await readFile(join(dir, 'users.schema.json'), 'utf8')).toBe(plain.stdout.text);
      expect(io.stdout.text).toBe('');
      const csv = testDeps(dir);
      expect(await runCli(['template', 'users'], csv.deps)).toBe(0);
      expect(await runCli(['template', 'users', '--out', 'users.csv'], testDeps(dir).deps)).toBe(0);
      expect(await readFile(join(dir, 'users.csv'), 'utf8')).toBe(csv.stdout.text);
    }));

  it('local export --out writes a world file that local init --seed takes back', () =>
    withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect(await runCli(['--store', store, 'local', 'init'], testDeps(dir).deps)).toBe(0);
      const io = testDeps(dir);
      expect(await runCli(['--store', store, 'local', 'export', '--out', 'world.json'], io.deps)).toBe(0);
      expect(io.stdout.text).toBe('');
      expect(JSON.parse(await readFile(join(dir, 'world.json'), 'utf8'))).toEqual(expect.any(Object));
      expect(
        await runCli(['--store', join(dir, 'other'), 'local', 'init', '--seed', 'world.json'], testDeps(dir).deps),
      ).toBe(0);
    }));

  it('schedule links -o csv and review-session show -o json --out write their files', () =>
    withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect(await runCli(['--store', store, 'local', 'init'], testDeps(dir).deps)).toBe(0);
      const world = JSON.parse(await readFile(join(__dirname, '../../fixtures/world.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const schedules = (world.schedules ?? world.Schedules) as Array<Record<string, unknown>> | undefined;
      const sessions = (world.reviewSessions ?? world.ReviewSessions) as Array<Record<string, unknown>> | undefined;
      const scheduleId = String(schedules?.[0]?.ScheduleExtId ?? schedules?.[0]?.ExternalId ?? '');
      const sessionId = String(sessions?.[0]?.ExternalId ?? '');
      expect(
        await runCli(
          ['--store', store, 'schedule', 'links', scheduleId, '-o', 'csv', '--out', 'links.csv'],
          testDeps(dir).deps,
        ),
      ).toBe(0);
      expect(await readFile(join(dir, 'links.csv'), 'utf8')).toContain('CandidateExtId');
      expect(
        await runCli(
          ['--store', store, 'review-session', 'show', sessionId, '-o', 'json', '--out', 'session.json'],
          testDeps(dir).deps,
        ),
      ).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'session.json'), 'utf8'))).toEqual(expect.any(Object));
    }));

  it('a command that fails leaves the old file and no temp file; an unwritable place is exit 2', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'keep.json'), 'old');
      const io = testDeps(dir);
      expect(await runCli(['template', 'nonsense', '--out', 'keep.json'], io.deps)).toBe(2);
      expect(await readFile(join(dir, 'keep.json'), 'utf8')).toBe('old');
      expect((await readdir(dir)).sort()).toEqual(['.config', 'keep.json']);
      const missing = testDeps(dir);
      expect(await runCli(['schema', 'users', '--out', join('no-such-dir', 's.json')], missing.deps)).toBe(2);
      expect(missing.stderr.text).toContain('cannot write');
    }));

  it('review-session show of an unknown id leaves an existing --out file as it was, in every format (trial11 F06)', () =>
    withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect(await runCli(['--store', store, 'local', 'init'], testDeps(dir).deps)).toBe(0);
      for (const name of ['r.xlsx', 'r.csv', 'r.txt', 'r.json']) {
        await writeFile(join(dir, name), 'last term');
        const io = testDeps(dir);
        expect(
          await runCli(
            [
              '--store',
              store,
              'review-session',
              'show',
              'RS-TYPO',
              '--out',
              name,
              ...(name === 'r.json' ? ['--json'] : []),
            ],
            io.deps,
          ),
        ).toBe(1);
        expect(await readFile(join(dir, name), 'utf8')).toBe('last term');
        // The one document --json promises goes to stdout, since no file holds it.
        if (name === 'r.json') expect(JSON.parse(io.stdout.text)).toMatchObject({ externalId: 'RS-TYPO' });
      }
      expect((await readdir(dir)).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
    }));

  it('--dry-run with --out is refused, exit 2, nothing read or written, one --json error document; without --out a read takes --dry-run (trial12 F07)', () =>
    withTempDir(async (dir) => {
      expect(await runCli(['local', 'init'], testDeps(dir).deps)).toBe(0);
      const reads = [
        ['local', 'export'],
        ['template', 'users'],
        ['schema', 'users'],
        ['schedule', 'links', 'S-PAST'],
        ['review-session', 'show', 'RS-MATH1-OCT'],
        ['synced', 'export'],
      ];
      for (const read of reads) {
        await writeFile(join(dir, 'mine.csv'), "the admin's own");
        const io = testDeps(dir);
        expect(await runCli([...read, '--out', 'mine.csv', '--dry-run', '--json'], io.deps), io.stderr.text).toBe(2);
        expect(await readFile(join(dir, 'mine.csv'), 'utf8')).toBe("the admin's own");
        expect(JSON.parse(io.stdout.text)).toEqual({
          error: {
            exitCode: 2,
            code: 'E2000',
            kind: 'usage',
            message: '--out writes a file, which --dry-run never does: leave one of them out',
          },
        });
        if (read[0] === 'synced') continue;
        const plain = testDeps(dir);
        expect([await runCli([...read, '--dry-run'], plain.deps), plain.stdout.text.length > 0]).toEqual([0, true]);
      }
      expect((await readdir(dir)).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
    }));
});
