import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { ROOT, examctl, startExamctl, type Running } from './cli.js';

/** `local serve` on a fresh store of the demo world in `dir` (its log kept), once it listens. */
export async function serveDemoStore(
  dir: string,
  env: Record<string, string>,
  extra: readonly string[] = [],
): Promise<{ server: Running; baseUrl: string; log: () => string }> {
  const init = await examctl(
    ['local', 'init', '--seed', join(ROOT, 'fixtures/world.json'), '--store', join(dir, 'store')],
    dir,
    env,
  );
  if (init.code !== 0) throw new Error(`local init: ${init.stderr}`);
  const server = startExamctl(['local', 'serve', '--port', '0', '--store', join(dir, 'store'), ...extra], dir, env);
  let printed = '';
  server.child.stderr!.on('data', (chunk: string) => (printed += chunk));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(printed);
      if (match) {
        clearInterval(poll);
        resolve(match[1]!);
      } else if (server.child.exitCode !== null) {
        clearInterval(poll);
        reject(new Error(`local serve exited: ${printed}`));
      }
    }, 5);
  });
  return { server, baseUrl, log: () => printed };
}

/**
 * Each test of the file in a fresh directory, with the runs under `runs/`, the demo token, and
 * `local serve` on a demo store there (`serveDemoStore`); gone after it. Filled before each test.
 */
export function demoServerDirs(
  prefix: string,
  extra: readonly string[] = [],
): { dir: string; env: Record<string, string>; baseUrl: string; log: () => string } {
  const current = { dir: '', env: {} as Record<string, string>, baseUrl: '', log: () => '' };
  let server: Running | undefined;
  beforeEach(async () => {
    current.dir = await mkdtemp(join(tmpdir(), `examctl-${prefix}-`));
    current.env = { EXAMCTL_RUNS_DIR: join(current.dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' };
    const served = await serveDemoStore(current.dir, current.env, extra);
    server = served.server;
    current.baseUrl = served.baseUrl;
    current.log = served.log;
  });
  afterEach(async () => {
    // The server's own stop is tested elsewhere (test/server/); here it only has to go.
    server?.child.kill('SIGKILL');
    await server?.done;
    await rm(current.dir, { recursive: true, force: true });
  });
  return current;
}
