import { writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { proxyFor } from '../../src/api/proxy-env.js';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { runCli } from '../../src/cli/run-cli.js';
import { NeverSentTargetError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { lineWith } from '../support/facts.js';

/** Issue 26 (1): HTTPS_PROXY/HTTP_PROXY/NO_PROXY, through a CONNECT proxy on loopback. */
const TOKEN = 'proxy-test-token-0123456789';
let proxy: ConnectProxy | undefined;
let server: HostileServer | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

describe('proxyFor (curl rules)', () => {
  it('https_proxy for https, http_proxy for http, lower case first, NO_PROXY by host, subdomain, port or *', () => {
    const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', HTTP_PROXY: 'proxy.test:8080' };
    expect(proxyFor('https://exam.example.org', env)).toBe('http://lower:3128');
    expect(proxyFor('http://exam.example.org', env)).toBe('http://proxy.test:8080');
    expect(proxyFor('https://exam.example.org', { HTTP_PROXY: 'http://p:1' })).toBeUndefined();
    expect(proxyFor('https://exam.example.org', { ...env, NO_PROXY: 'other.org, example.org' })).toBeUndefined();
    expect(proxyFor('https://exam.example.org', { ...env, no_proxy: '.example.org' })).toBeUndefined();
    expect(proxyFor('https://exam.example.org', { ...env, NO_PROXY: 'example.org:8443' })).toBe('http://lower:3128');
    expect(proxyFor('https://exam.example.org', { ...env, NO_PROXY: '*' })).toBeUndefined();
    expect(proxyFor('https://notexample.org', { ...env, NO_PROXY: 'example.org' })).toBe('http://lower:3128');
    expect(proxyFor('http://127.0.0.1:8080', env)).toBeUndefined();
  });
});

describe('through a CONNECT proxy on loopback', () => {
  it('a remote sync goes through the proxy (its log shows the tunnel and the credentials), none of which is printed', async () => {
    proxy = await startConnectProxy();
    server = await startHostileServer((_request, res) =>
      json(res, 200, { Content: { User: {}, GroupErrors: [] }, Success: true, Errors: null }),
    );
    const port = new URL(server.url).port;
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.json'),
        JSON.stringify([
          { ExternalId: 'u-1', FirstName: 'A', LastName: 'B', Email: 'a@example.test', Role: 'Candidate' },
        ]),
      );
      const proxyUrl = `http://alice:pr0xy-pa55word@127.0.0.1:${proxy!.port}`;
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs'), HTTP_PROXY: proxyUrl });
      // Not loopback, so proxied: the proxy resolves the name (to 127.0.0.1) as a real one would.
      const code = await runCli(
        [
          '--target',
          'remote',
          '--base-url',
          `http://exam.proxied.test:${port}`,
          '--allow-insecure-http',
          '--yes',
          '--json',
          'user',
          'sync',
          '--file',
          join(dir, 'users.json'),
        ],
        io.deps,
      );
      expect(code).toBe(0);
      expect(proxy!.log).toEqual([
        {
          target: `exam.proxied.test:${port}`,
          authorization: `Basic ${Buffer.from('alice:pr0xy-pa55word').toString('base64')}`,
        },
      ]);
      expect(server!.requests).toHaveLength(1);
      expect(server!.requests[0]!.headers.authorization).toBe(`EAPI ${TOKEN}`);
      expect(io.stdout.text + io.stderr.text).not.toContain('pr0xy-pa55word');
    });
  });

  it('doctor says "via proxy http://host:port", never the proxy credentials', async () => {
    proxy = await startConnectProxy();
    server = await startHostileServer((_request, res) =>
      json(res, 400, {
        Content: null,
        Success: false,
        Errors: [{ Code: 1101, Message: 'Review session has not been found' }],
      }),
    );
    const port = new URL(server.url).port;
    await withTempDir(async (dir) => {
      const io = testDeps(
        dir,
        { now: () => new Date() },
        { EXAMCTL_TOKEN: TOKEN, http_proxy: `http://bob:s3cret-proxy@127.0.0.1:${proxy!.port}` },
      );
      const code = await runCli(
        ['--base-url', `http://exam.proxied.test:${port}`, '--allow-insecure-http', 'doctor'],
        io.deps,
      );
      expect(code).toBe(0);
      expect(lineWith(io.stdout.text, `via proxy http://127.0.0.1:${proxy!.port} `, ' 400 ')).toMatch(
        /^ok +reachable /,
      );
      expect(lineWith(io.stdout.text, '400', '1101')).toMatch(/^ok +authorised /);
      expect(io.stdout.text + io.stderr.text).not.toContain('s3cret-proxy');
      expect(proxy!.log).toHaveLength(1);
    });
  });

  it('https through the tunnel is end to end: a self-signed server behind the proxy is refused with the certificate advice, NODE_TLS_REJECT_UNAUTHORIZED=0 too', async () => {
    proxy = await startConnectProxy();
    server = await startHostileServer((_request, res) => json(res, 200, { Content: null, Success: true }), {
      selfSigned: true,
    });
    const port = new URL(server.url).port;
    const client = createRemoteClient({
      baseUrl: `https://exam.proxied.test:${port}`,
      token: TOKEN,
      env: { HTTPS_PROXY: proxy.url },
      sleep: async () => undefined,
    });
    vi.stubEnv('NODE_TLS_REJECT_UNAUTHORIZED', '0');
    try {
      const failure = await client.upsertUser({ ExternalId: 'u-1' } as never).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(NeverSentTargetError);
      expect((failure as Error).message).toMatch(/TLS certificate|NODE_EXTRA_CA_CERTS/);
      expect(proxy.log.map((entry) => entry.target)).toEqual([`exam.proxied.test:${port}`]);
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
      vi.unstubAllEnvs();
    }
  });

  describe('a proxy that does not open the tunnel (QA D6): one plain line, "nothing was sent", credentials not shown', () => {
    const attempt = async (deny: number | 'close', maxAttempts = 5): Promise<Error> => {
      proxy = await startConnectProxy({ deny });
      const client = createRemoteClient({
        baseUrl: 'https://exam.proxied.test',
        token: TOKEN,
        env: { HTTPS_PROXY: `http://dave:tunnel-pa55@127.0.0.1:${proxy.port}` },
        maxAttempts,
        sleep: async () => undefined,
      });
      try {
        const failure = await client.upsertUser({ ExternalId: 'u-1' } as never).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(NeverSentTargetError);
        expect((failure as Error).message).toContain('nothing was sent');
        expect((failure as Error).message).not.toContain('tunnel-pa55');
        expect((failure as Error).message).not.toContain('HTTP Tunneling');
        return failure as Error;
      } finally {
        await client.close();
      }
    };

    it('403: refused, not retried', async () => {
      const failure = await attempt(403);
      expect(failure.message).toContain(
        `the proxy http://127.0.0.1:${proxy!.port} refused the tunnel to exam.proxied.test:443 (403): check HTTPS_PROXY/NO_PROXY and the proxy's credentials`,
      );
      expect(proxy!.log).toHaveLength(1);
    });

    it('403 through a whole run: exit 3, one plain line, and runs show says the run\'s own words ("nothing was sent"), not "may have been applied"', async () => {
      proxy = await startConnectProxy({ deny: 403 });
      await withTempDir(async (dir) => {
        const env = {
          EXAMCTL_TOKEN: TOKEN,
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
          HTTPS_PROXY: `http://erin:run-pa55@127.0.0.1:${proxy!.port}`,
        };
        const io = testDeps(dir, {}, env);
        // A command whose run begins with a write (a `user sync` asks the store's head first, before its journal).
        const code = await runCli(
          [
            '--target',
            'remote',
            '--base-url',
            'https://exam.proxied.test',
            '--yes',
            'collection',
            'add',
            '--title',
            'Physics',
          ],
          io.deps,
        );
        expect(code).toBe(3);
        expectCoded(io.stderr.text, 'E3002', 'exam.proxied.test:443', '403');
        expect(io.stderr.text).toContain('nothing was sent');
        expect(io.stderr.text + io.stdout.text).not.toContain('run-pa55');
        expect(proxy!.log).toHaveLength(1);
        const runId = /run (\S+) \(examctl runs show/.exec(io.stderr.text)?.[1];
        expect(runId).toBeDefined();
        const show = testDeps(dir, {}, env);
        await runCli(['runs', 'show', runId!], show.deps);
        // The journal keeps the failure's words for the item (QA F4): the same as the live report, the proxy's password still out.
        expect(show.stdout.text + show.stderr.text).toContain(
          "refused the tunnel to exam.proxied.test:443 (403): check HTTPS_PROXY/NO_PROXY and the proxy's credentials; nothing was sent",
        );
        expect(show.stdout.text + show.stderr.text).not.toContain('may have been applied');
        expect(show.stdout.text + show.stderr.text).not.toContain('run-pa55');
        expect(
          readdirSync(join(dir, 'runs', runId!))
            .map((name) => readFileSync(join(dir, 'runs', runId!, name), 'utf8'))
            .join(''),
        ).not.toContain('run-pa55');
      });
    });

    it('407: proxy authentication required, not retried', async () => {
      const failure = await attempt(407);
      expect((failure as NeverSentTargetError).code).toBe('E3002');
      expect(failure.message).toContain('407');
      expect(failure.message).toContain('exam.proxied.test:443');
      expect(proxy!.log).toHaveLength(1);
    });

    it('502 (the proxy could not reach the host): retried, then never-sent', async () => {
      const failure = await attempt(502, 2);
      expect((failure as NeverSentTargetError).code).toBe('E3002');
      expect(failure.message).toContain('exam.proxied.test:443 (502)');
      expect(failure.message).toContain('2 attempts');
      expect(proxy!.log).toHaveLength(2);
    });

    it('a proxy that closes the CONNECT unanswered: never-sent, with its own words', async () => {
      const failure = await attempt('close', 2);
      expect(failure.message).toContain(
        `the proxy http://127.0.0.1:${proxy!.port} closed the connection before opening the tunnel to exam.proxied.test:443`,
      );
      expect(proxy!.log).toHaveLength(2);
    });
  });

  it('a proxy that is down: "nothing was sent", naming the proxy, its credentials not shown', async () => {
    const client = createRemoteClient({
      baseUrl: 'https://exam.proxied.test',
      token: TOKEN,
      env: { https_proxy: 'http://carol:hidden-pass@127.0.0.1:9' },
      maxAttempts: 2,
      sleep: async () => undefined,
    });
    try {
      const failure = await client.upsertUser({ ExternalId: 'u-1' } as never).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(NeverSentTargetError);
      expect((failure as Error).message).toContain('(via proxy http://127.0.0.1:9)');
      expect((failure as Error).message).toContain('nothing was sent');
      expect((failure as Error).message).not.toContain('hidden-pass');
    } finally {
      await client.close();
    }
  });
});
