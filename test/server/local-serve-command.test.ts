import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import type { StringSink } from '../support/string-sink.js';

/**
 * Waits (without a deadline of its own: vitest's test timeout bounds it) until stderr says
 * something; fails at once, showing stderr, if the command ends first.
 */
async function waitFor(sink: StringSink, pattern: RegExp, running: Promise<number>): Promise<RegExpExecArray> {
  let ended: number | undefined;
  void running.then((code) => (ended = code));
  for (;;) {
    const match = pattern.exec(sink.text);
    if (match) return match;
    if (ended !== undefined) throw new Error(`the command ended (exit ${ended}) before ${pattern}:\n${sink.text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('examctl local serve (command)', () => {
  it('creates the store from the demo world, prints the real port, logs each request, stops on the signal', async () => {
    await withTempDir(async (dir) => {
      const stop = new AbortController();
      const io = testDeps(dir, { signal: stop.signal });
      const store = join(dir, 'store');
      const running = runCli(['--store', store, 'local', 'serve', '--port', '0'], io.deps);
      const [, url] = await waitFor(io.stderr, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, running);
      expect(url).not.toMatch(/:0$/);
      expect(lineWith(io.stderr.text, `created local store at ${store}`, 'demo world')).toBeTruthy();
      expect(existsSync(store)).toBe(true);

      const ok = await request(`${url}/api/v1/integrations/external/review-sessions/RS-MATH1-OCT`, {
        headers: { authorization: 'EAPI dev-token' },
      });
      expect(ok.statusCode).toBe(200);
      expect(((await ok.body.json()) as { Content: { ExternalId: string } }).Content.ExternalId).toBe('RS-MATH1-OCT');
      const refused = await request(`${url}/api/v1/integrations/external/review-sessions/RS-MATH1-OCT`, {
        headers: { authorization: 'EAPI wrong' },
      });
      expect(refused.statusCode).toBe(403);
      await refused.body.dump();

      stop.abort();
      expect(await running).toBe(0);
      expect(io.stderr.text).toMatch(
        /GET \/api\/v1\/integrations\/external\/review-sessions\/RS-MATH1-OCT 200 \d+ms\n/,
      );
      expect(io.stderr.text).toMatch(
        /GET \/api\/v1\/integrations\/external\/review-sessions\/RS-MATH1-OCT 403 \d+ms\n/,
      );
      expect(io.stderr.text).not.toContain('dev-token');
      expect(io.stderr.text).toContain('stopped');
      expect(io.stdout.text).toBe('');
      // The port is free again: the server really closed.
      await expect(request(`${url}/api/v1/integrations/openapi.json`)).rejects.toThrow();
    });
  });

  it('a port in use is a usage error (exit 2)', async () => {
    await withTempDir(async (dir) => {
      const stop = new AbortController();
      const first = testDeps(dir, { signal: stop.signal });
      const running = runCli(['--store', join(dir, 'store'), 'local', 'serve', '--port', '0'], first.deps);
      const [, port] = await waitFor(first.stderr, /listening on http:\/\/127\.0\.0\.1:(\d+)\n/, running);
      const second = testDeps(dir);
      const code = await runCli(['--store', join(dir, 'store'), 'local', 'serve', '--port', port!], second.deps);
      expect(code).toBe(2);
      expectCoded(second.stderr.text, 'E2000', `127.0.0.1:${port}`, 'in use');
      stop.abort();
      expect(await running).toBe(0);
    });
  });

  it('--public-url names where clients reach it in the OpenAPI document; a URL that cannot be one is exit 2', async () => {
    await withTempDir(async (dir) => {
      const stop = new AbortController();
      const io = testDeps(dir, { signal: stop.signal });
      const running = runCli(
        [
          '--store',
          join(dir, 'store'),
          'local',
          'serve',
          '--port',
          '0',
          '--public-url',
          'https://exam.example.test/examctl/',
        ],
        io.deps,
      );
      const [, url] = await waitFor(io.stderr, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, running);
      const answer = await request(`${url}/api/v1/integrations/openapi.json`);
      expect(((await answer.body.json()) as { servers: unknown }).servers).toEqual([
        { url: 'https://exam.example.test/examctl/api/v1/integrations' },
      ]);
      expect(io.stderr.text).toContain('public URL https://exam.example.test/examctl');
      stop.abort();
      expect(await running).toBe(0);

      for (const bad of [
        'ftp://exam.example.test',
        'exam.example.test',
        'https://user:pw@exam.example.test',
        'https://exam.example.test/?a=1',
      ]) {
        const refused = testDeps(dir);
        expect(
          await runCli(
            ['--store', join(dir, 'store'), 'local', 'serve', '--port', '0', '--public-url', bad],
            refused.deps,
          ),
          bad,
        ).toBe(2);
        expect(refused.stderr.text).toContain('--public-url');
        expect(refused.stderr.text).not.toContain('listening on');
      }
    });
  });
});
