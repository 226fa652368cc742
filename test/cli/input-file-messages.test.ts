/**
 * What an input file that cannot be read is called: `--file ""` (a script's unset variable) is
 * named as the empty flag, whichever command takes it, never "cannot read: is a directory".
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function run(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...args], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('input files named wrongly', () => {
  it.each([
    [['user', 'sync', '--dry-run']],
    [['schedule', 'push', '--dry-run']],
    [['collection', 'add', '--dry-run']],
    [['invigilators', 'remove', 'S-1', '--dry-run']],
    [['review-session', 'show']],
    [['synced', 'adopt']],
  ])('%j --file "": exit 2, the flag named as empty', (args) =>
    withTempDir(async (dir) => {
      const said = await run(dir, [...args, '--file', '']);
      expect(said.code, said.stderr).toBe(2);
      expect(said.stderr).toContain('examctl: --file is empty: give the input file, or - for stdin');
      expect(said.stderr).not.toContain('directory');
      expect(said.stdout).toBe('');
    }),
  );
});
