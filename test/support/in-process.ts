import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from './string-sink.js';
import { childEnv } from './child-env.js';
import { PINNED_NOW, examctl, type Finished } from './cli.js';

/**
 * One step of a scenario, `examctl args...`, with what `examctl()` of ./cli.js gives (the same
 * private environment, code, stdout and stderr) but run in this process: the scenario's subject
 * is what the runs leave (stores, memories, journals, reports), not the process, and a Node
 * start per step made multi-night scenarios the suite's slowest files. A step that is to be
 * killed at a marker (EXAMCTL_TEST_SIGNAL_AFTER) is spawned: the signal would hit the runner.
 */
export async function examctlStep(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Finished> {
  if ('EXAMCTL_TEST_SIGNAL_AFTER' in env) return examctl(args, cwd, env);
  const stdout = new StringSink();
  const stderr = new StringSink();
  const code = await runCli(args, {
    stdout,
    stderr,
    env: { ...childEnv(cwd), EXAMCTL_NOW: PINNED_NOW, ...env },
    now: () => new Date(),
    isTTY: false,
    cwd,
  });
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}
