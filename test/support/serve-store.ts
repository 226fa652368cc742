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
  return serveStore(dir, env, extra, 0);
}

/** `local serve` on the store in `dir` at `port` (0: any free one), once it listens. */
async function serveStore(
  dir: string,
  env: Record<string, string>,
  extra: readonly string[],
  port: number,
): Promise<{ server: Running; baseUrl: string; log: () => string }> {
  const server = startExamctl(
    ['local', 'serve', '--port', String(port), '--store', join(dir, 'store'), ...extra],
    dir,
    env,
  );
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

export interface DemoServer {
  dir: string;
  env: Record<string, string>;
  baseUrl: string;
  /** The server's log so far: a request it answered may still be on its way here. */
  log: () => string;
  /**
   * Stops the server (SIGTERM: it finishes the requests it has read, reads no more) and returns
   * its whole log once it has exited: no request, of a killed client or any other, reaches the
   * store or the log after that.
   */
  stop: () => Promise<string>;
  /** `stop`, then `local serve` again on the same store and port (`baseUrl` holds); `log` starts empty. */
  restart: () => Promise<string>;
}

/**
 * Each test of the file in a fresh directory, with the runs under `runs/`, the demo token, and
 * `local serve` on a demo store there (`serveDemoStore`); gone after it. Filled before each test.
 */
export function demoServerDirs(prefix: string, extra: readonly string[] = []): DemoServer {
  let server: Running | undefined;
  // Exited, however (a handler stuck on a slow disk is cut at the server's own bound): it logs
  // each answer before it reads the signal, and a kill leaves the store loadable.
  const stop = async (): Promise<string> => {
    server!.child.kill('SIGTERM');
    return (await server!.done).stderr;
  };
  const current: DemoServer = {
    dir: '',
    env: {},
    baseUrl: '',
    log: () => '',
    stop,
    restart: async () => {
      const log = await stop();
      const served = await serveStore(current.dir, current.env, extra, Number(new URL(current.baseUrl).port));
      server = served.server;
      current.log = served.log;
      return log;
    },
  };
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
