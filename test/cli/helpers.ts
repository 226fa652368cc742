import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandDeps } from '../../src/cli/context.js';
import { StringSink } from '../../src/report/text-sink.js';

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
    // A config dir of its own, so the developer's real profiles never steer a test.
    env: { EXAMCTL_NOW: '2026-11-21T10:00:00Z', EXAMCTL_CONFIG_DIR: join(cwd, '.config'), ...env },
    now: () => new Date('2026-11-21T10:00:00Z'),
    isTTY: false,
    cwd,
    ...overrides,
  };
  return { deps, stdout, stderr };
}

export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-cli-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
