/**
 * Issue 81, "secrets never quoted from inputs": a token file given by mistake as --file is
 * described in the header message, never shown: by its shape (`EAPI x`, `Bearer x`, `x=...`, one
 * word of any length) or because examctl holds that token (EXAMCTL_TOKEN), split by `,` or not.
 */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

describe('a token given as --file is described, never quoted', () => {
  it.each([
    ['EAPI s3cr3t-tok-XYZ,abc', 'EAPI s3cr3t-tok-XYZ,abc', 's3cr3t-tok-XYZ'],
    ['Bearer abcdefghijklmnopqrstuvwxyz0123', undefined, 'abcdefghijklmnopqrstuvwxyz0123'],
    ['shorttok', undefined, 'shorttok'],
    ['api_key=K3yK3yK3y;FirstName', undefined, 'K3yK3yK3y'],
    ['zz9-tok,FirstName', 'zz9-tok', 'zz9-tok'],
  ])('%s: exit 2, the header message shows none of it', async (content, token, secret) => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'token.txt'), `${content}\n`);
      const env: Record<string, string> = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      if (token !== undefined) env.EXAMCTL_TOKEN = token;
      const io = testDeps(dir, {}, env);
      const argv = ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'token.txt'];
      expect(await runCli(argv, io.deps)).toBe(2);
      expect(io.stderr.text).toContain('token.txt:1');
      expect(io.stderr.text).not.toContain(secret);
      expect(io.stderr.text).toMatch(/looks like a credential \(not shown\)|one word \(not shown/);
    });
  });
});
