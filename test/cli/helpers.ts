import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { withTempDir as inFreshTempDir } from '../support/temp-dir.js';
import { ownConfigDir } from '../support/child-env.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { StringSink } from '../support/string-sink.js';

export interface TestIo {
  deps: CommandDeps;
  stdout: StringSink;
  stderr: StringSink;
}

/** In-process deps: captured output, a pinned engine clock, no TTY, the given working directory. */
export function testDeps(cwd: string, overrides: Partial<CommandDeps> = {}, env: Record<string, string> = {}): TestIo {
  const stdout = new StringSink();
  const stderr = new StringSink();
  const deps: CommandDeps = {
    stdout,
    stderr,
    // A config dir of its own (child-env.ts), unless the test names one; UTC as this
    // computer's zone, so a table of times reads the same on every machine.
    env: {
      EXAMCTL_NOW: '2026-11-21T10:00:00Z',
      EXAMCTL_CONFIG_DIR: env.EXAMCTL_CONFIG_DIR ?? ownConfigDir(cwd),
      TZ: 'UTC',
      ...env,
    },
    now: () => new Date('2026-11-21T10:00:00Z'),
    isTTY: false,
    cwd,
    // What the command tree gives a command run through runCli; a pipeline run directly keeps no options.
    keptOptions: { names: [], digested: [] },
    ...overrides,
  };
  return { deps, stdout, stderr };
}

export function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  return inFreshTempDir(run, 'examctl-cli-');
}

/** The CLI in-process on the local store `<dir>/store`, runs and sync memory in `dir` too: exit code and output. */
export function storeCli(dir: string) {
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
  return async (args: string[]) => {
    const io = testDeps(dir, {}, env);
    const code = await runCli(['--store', join(dir, 'store'), ...args], io.deps);
    return { code, stdout: io.stdout.text, stderr: io.stderr.text };
  };
}

/** storeCli over a store the demo users (fixtures/users.csv, copied to `dir` as users.csv) were synced into. */
export async function storeCliWithUsers(dir: string): Promise<ReturnType<typeof storeCli>> {
  const cli = storeCli(dir);
  await copyFile(resolve(__dirname, '../../fixtures/users.csv'), join(dir, 'users.csv'));
  const sync = await cli(['user', 'sync', '--file', 'users.csv']);
  if (sync.code !== 0) throw new Error(`the demo users were not synced (exit ${sync.code}): ${sync.stderr}`);
  return cli;
}
