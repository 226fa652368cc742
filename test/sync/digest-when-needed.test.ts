/**
 * trial23 f13: a wrong file (a disk image's NULs, a 2 GB line after the header) is refused at its
 * line 2 before its SHA-256 is read: the digest (the whole file) is read only when the old-file
 * refusal judges it, or when a real run starts.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

const digests = vi.hoisted(() => ({ read: [] as string[] }));
vi.mock('../../src/sync/replayed-file.js', async (original) => {
  const real = await original<typeof import('../../src/sync/replayed-file.js')>();
  return { ...real, fileDigest: (path: string) => (digests.read.push(path), real.fileDigest(path)) };
});

async function run(dir: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...args], io.deps);
  return { code, stderr: io.stderr.text };
}

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies\n';

describe("the input's digest is read when needed, after a wrong line 2 is refused", () => {
  it('a dry run of a file of NULs after its header: exit 2 naming line 2, the digest never read', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'dump.csv'), Buffer.concat([Buffer.from(HEADER), Buffer.alloc(200_000)]));
      digests.read.length = 0;
      const said = await run(dir, ['user', 'sync', '--dry-run', '--file', 'dump.csv']);
      expect(said.code, said.stderr).toBe(2);
      expectCoded(said.stderr, 'E2100', 'dump.csv:2:', 'binary');
      expect(digests.read).toEqual([]);
    }));

  it('a real run of a sound file records its digest (the next night compares with it)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), `${HEADER}u-1,Ann,Lee,ann@example.test,ann,Candidate,\n`);
      expect((await run(dir, ['local', 'init'])).code).toBe(0);
      digests.read.length = 0;
      const said = await run(dir, ['user', 'sync', '--file', 'users.csv']);
      expect(said.code, said.stderr).toBe(0);
      expect(digests.read).toHaveLength(1);
    }));
});
