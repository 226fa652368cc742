import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/** A full disk, faked (test/support/full-disk-open.ts): writes to a temp file whose name matches `full` fail with ENOSPC. */
const fake = vi.hoisted(() => ({ full: undefined as RegExp | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open = (await import('../support/full-disk-open.js')).fullDiskOpen(actual, fake);
  return { ...actual, open, default: { ...actual, open } };
});

/** A store and its user memory in `dir` (one user synced), and the CLI run there. */
async function storeWithMemory(dir: string) {
  const cli = async (...argv: string[]) => {
    const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') });
    return { code: await runCli(['--store', 'store', ...argv], io.deps), stderr: io.stderr.text };
  };
  await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n');
  expect((await cli('--yes', 'user', 'sync', '--file', 'users.csv', '--changed-only')).code).toBe(0);
  return cli;
}

describe("an export that cannot be written (a full disk) leaves no earlier file looking like this one's", () => {
  it('local export --out and synced export --out: the earlier file is renamed <name>.earlier and said so; exit 3; gone after a good export', () =>
    withTempDir(async (dir) => {
      const cli = await storeWithMemory(dir);
      for (const [command, out] of [
        ['local', 'world.json'],
        ['synced', 'memory.json'],
      ] as const) {
        expect((await cli(command, 'export', '--out', out)).code).toBe(0);
        const before = await readFile(join(dir, out), 'utf8');
        fake.full = new RegExp(`\\.atomic-.*${out}$`);
        try {
          const failed = await cli(command, 'export', '--out', out);
          expectCoded(failed.stderr, 'E3000', `cannot write ${out}`, 'ENOSPC', `${out}.earlier`);
          expect(failed.stderr).toContain(
            `cannot write ${out}: no space left on the device (ENOSPC); the earlier file there is now ${out}.earlier`,
          );
          expect(failed.stderr, 'said only once the file is in place').not.toContain('exported');
          expect((await readdir(dir)).filter((name) => name.startsWith(out))).toEqual([`${out}.earlier`]);
          expect(await readFile(join(dir, `${out}.earlier`), 'utf8')).toBe(before);
        } finally {
          fake.full = undefined;
        }
        expect((await cli(command, 'export', '--out', out)).code).toBe(0);
        expect((await readdir(dir)).filter((name) => name.startsWith(out))).toEqual([out]);
      }
    }));

  it("a <name>.earlier that is the sync memory's export (trial40 F04) is neither renamed over by local export's failed write nor removed by its good one", () =>
    withTempDir(async (dir) => {
      const cli = await storeWithMemory(dir);
      expect((await cli('synced', 'export', '--out', 'night.json.earlier')).code).toBe(0);
      expect((await cli('local', 'export', '--out', 'night.json')).code).toBe(0);
      const memory = await readFile(join(dir, 'night.json.earlier'), 'utf8');
      fake.full = /\.atomic-.*night\.json$/;
      try {
        const failed = await cli('local', 'export', '--out', 'night.json');
        expect(failed.code, failed.stderr).toBe(3);
        expectCoded(failed.stderr, 'E3000', '(not renamed: night.json.earlier', 'synced export --out');
      } finally {
        fake.full = undefined;
      }
      expect((await cli('local', 'export', '--out', 'night.json')).code).toBe(0);
      expect((await readdir(dir)).filter((name) => name.startsWith('night.json')).sort()).toEqual([
        'night.json',
        'night.json.earlier',
      ]);
      expect(await readFile(join(dir, 'night.json.earlier'), 'utf8')).toBe(memory);
    }));
});
