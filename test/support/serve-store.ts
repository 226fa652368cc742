import { join } from 'node:path';
import { ROOT, examctl, startExamctl, type Running } from './cli.js';

/** `local serve` on a fresh store of the demo world in `dir` (its log kept), once it listens. */
export async function serveDemoStore(dir: string, env: Record<string, string>, extra: readonly string[] = []): Promise<{ server: Running; baseUrl: string; log: () => string }> {
  const init = await examctl(['local', 'init', '--seed', join(ROOT, 'fixtures/world.json'), '--store', join(dir, 'store')], dir, env);
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
