import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from '../cli/helpers.js';

/**
 * A `user sync` run started with `options` (as its journal keeps them) and stopped before it
 * sent anything, resumed by `runs resume` on the demo world's local store in `dir`: the users
 * the store then holds. The resume must succeed.
 */
export async function usersAfterResume(
  dir: string,
  options: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const { RunJournal } = await import('../../src/runs/run-journal.js');
  const store = join(dir, 'store');
  const runsDir = join(dir, 'runs');
  expect(await runCli(['local', 'init', '--store', store], testDeps(dir).deps)).toBe(0);
  const started = await RunJournal.start(runsDir, {
    command: 'user sync',
    options: { ...options, cwd: dir },
    target: { kind: 'local', store },
    input: null,
  });
  await started.close();
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: runsDir, ...env });
  expect(await runCli(['--store', store, 'runs', 'resume'], io.deps), io.stderr.text).toBe(0);
  const shown = testDeps(dir);
  await runCli(['--store', store, 'local', 'export', '--json'], shown.deps);
  return (JSON.parse(shown.stdout.text) as { Users: Record<string, unknown>[] }).Users;
}
