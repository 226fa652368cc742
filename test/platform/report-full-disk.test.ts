import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * A full disk, faked: writes to the report's temp file (a name matching `full`) fail with ENOSPC;
 * a rename onto a name matching `stuck` fails with EPERM (the earlier report open in Excel).
 */
const fake = vi.hoisted(() => ({ full: undefined as RegExp | undefined, stuck: undefined as RegExp | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open = (await import('../support/full-disk-open.js')).fullDiskOpen(actual, fake);
  const rename = async (from: string, to: string): Promise<void> => {
    if (fake.stuck?.test(String(to)))
      throw Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), { code: 'EPERM' });
    return actual.rename(from, to);
  };
  return { ...actual, open, rename, default: { ...actual, open, rename } };
});

const USERS = resolve(__dirname, '../../fixtures/users.csv');

describe("a --report that cannot be written (a full disk) leaves no earlier report looking like this run's (trial35 F08)", () => {
  it('the earlier report at the name is renamed <name>.earlier and said so; exit 3', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
      const sync = async () => {
        const io = testDeps(dir);
        const code = await runCli(
          ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv', '--report', 'out.xml'],
          io.deps,
        );
        return { code, stderr: io.stderr.text };
      };
      expect((await sync()).code).toBe(0);
      const night1 = await readFile(join(dir, 'out.xml'), 'utf8');
      fake.full = /\.atomic-.*out\.xml$/;
      try {
        const night2 = await sync();
        expect(night2.code, night2.stderr).toBe(3);
        // Where the earlier report went, and that no record is lost (the run ran to its end).
        expectCoded(
          night2.stderr,
          'E3040',
          'report out.xml',
          'ENOSPC',
          'out.xml.earlier',
          'every record was processed',
        );
        expect((await readdir(dir)).filter((name) => name.startsWith('out.xml'))).toEqual(['out.xml.earlier']);
        expect(await readFile(join(dir, 'out.xml.earlier'), 'utf8')).toBe(night1);
        // One that cannot be renamed (open elsewhere) stays, said to be an earlier run's.
        await writeFile(join(dir, 'out.xml'), night1);
        fake.stuck = /out\.xml\.earlier$/;
        const night3 = await sync();
        expect(night3.code).toBe(3);
        expectCoded(night3.stderr, 'E3040', 'out.xml', 'ENOSPC', 'not renamed');
      } finally {
        fake.full = undefined;
        fake.stuck = undefined;
      }
      // Space back: the good night's report is at the name, and the earlier one is not kept beside it (trial36 F10).
      expect((await sync()).code).toBe(0);
      expect((await readdir(dir)).filter((name) => name.startsWith('out.xml'))).toEqual(['out.xml']);
    }));

  it('a <name>.earlier the run reads (the report fed back with --only-failed) is neither renamed over nor removed (trial38 F06, numbered F02 in its brief)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
      const sync = async (...args: string[]) => {
        const io = testDeps(dir);
        const code = await runCli(
          ['--store', join(dir, 'store'), 'user', 'sync', ...args, '--report', 'out.csv'],
          io.deps,
        );
        return { code, stderr: io.stderr.text };
      };
      expect((await sync('--file', 'users.csv')).code).toBe(0);
      const input = await readFile(join(dir, 'out.csv'), 'utf8');
      await writeFile(join(dir, 'out.csv.earlier'), input);
      await writeFile(join(dir, 'out.csv'), 'yesterday');
      const retry = ['--file', 'out.csv.earlier', '--only-failed'];
      fake.full = /\.atomic-.*out\.csv$/;
      try {
        const full = await sync(...retry);
        expect(full.code, full.stderr).toBe(3);
        expectCoded(full.stderr, 'E3040', 'ENOSPC', 'not renamed: out.csv.earlier', '--file');
        expect(await readFile(join(dir, 'out.csv'), 'utf8')).toBe('yesterday');
      } finally {
        fake.full = undefined;
      }
      expect(await readFile(join(dir, 'out.csv.earlier'), 'utf8')).toBe(input);
      const good = await sync(...retry);
      expect(good.code, good.stderr).toBe(0);
      expect(await readFile(join(dir, 'out.csv.earlier'), 'utf8')).toBe(input);
      // Its report rebuilt (runs show): the same.
      const run = /\d{8}T\d{6}\.\d{3}Z-[0-9a-f]+/.exec(good.stderr)?.[0] ?? 'none';
      const shown = testDeps(dir);
      expect(await runCli(['runs', 'show', run, '--report', 'out.csv'], shown.deps), shown.stderr.text).toBe(0);
      expect(await readFile(join(dir, 'out.csv.earlier'), 'utf8')).toBe(input);
    }));
});
