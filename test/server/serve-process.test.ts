import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.js';

/**
 * `bin/examctl local serve` as a process (dist/, built by the global setup): the
 * real signal path through src/cli/main.ts. SIGTERM and SIGINT both stop it cleanly, exit 0.
 */
const BIN = resolve(__dirname, '../../bin/examctl');

async function serveThenStop(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string; status: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-serve-'));
  try {
    const child = spawn(process.execPath, [BIN, 'local', 'serve', '--port', '0', '--store', join(dir, 'store')], {
      cwd: dir,
      env: childEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    const url = await new Promise<string>((done, fail) => {
      child.stderr.on('data', (text: string) => {
        stderr += text;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stderr);
        if (match) done(match[1]!);
      });
      child.once('exit', (code) => fail(new Error(`exited ${code} before listening: ${stderr}`)));
    });
    const response = await request(`${url}/api/v1/integrations/external/review-sessions/RS-NOPE`, {
      headers: { authorization: 'EAPI dev-token' },
    });
    await response.body.dump();
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code] = (await exited) as [number | null];
    return { code, stderr, status: response.statusCode };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('examctl local serve (process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops cleanly on %s with exit 0', async (signal) => {
    const { code, stderr, status } = await serveThenStop(signal);
    expect(status).toBe(400);
    expect(code).toBe(0);
    expect(stderr).toContain('created local store at');
    expect(stderr).toMatch(/GET \/api\/v1\/integrations\/external\/review-sessions\/RS-NOPE 400 \d+ms\n/);
    expect(stderr).toContain('stopped');
  });
});
