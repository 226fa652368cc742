import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { runCli } from '../../src/cli/run-cli.js';
import { UsageError } from '../../src/system/errors.js';
import { faultPlan, parseFaultSpec } from '../../src/server/faults.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { answeringApi } from '../support/answering-api.js';

const TOKEN = 'faults-token';

function countingApi(calls: string[]): IntegrationApi {
  return answeringApi((body) => calls.push((body as { ExternalId: string }).ExternalId));
}

async function withFaultyServer(
  spec: string,
  run: (server: RunningServer, calls: string[], log: string[]) => Promise<void>,
  seed = 7,
): Promise<void> {
  const calls: string[] = [];
  const log: string[] = [];
  const server = await startServer({
    api: countingApi(calls),
    tokens: () => [TOKEN],
    log: (line) => log.push(line),
    openapi: { openapi: '3.1.0' },
    faults: { spec: parseFaultSpec(spec), seed },
  });
  try {
    await run(server, calls, log);
  } finally {
    await server.close();
  }
}

const postUser = (server: RunningServer, id: string) =>
  request(`${server.url}/api/v1/integrations/user`, {
    method: 'POST',
    headers: { authorization: `EAPI ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ExternalId: id }),
  });

describe('--faults SPEC', () => {
  it('parses every kind, in any case and with spaces', () => {
    expect(parseFaultSpec('429:5%, 500:1.5%,503:10%,RESET:2%,lost:3%,latency:5-50ms')).toEqual({
      faults: [
        { kind: '429', percent: 5 },
        { kind: '500', percent: 1.5 },
        { kind: '503', percent: 10 },
        { kind: 'reset', percent: 2 },
        { kind: 'lost', percent: 3 },
      ],
      latency: { minMs: 5, maxMs: 50 },
    });
  });

  it.each([
    ['', /empty/],
    ['404:10%', /"404:10%": unknown kind/],
    ['503:10', /"503:10": expected a percentage/],
    ['503:0%', /more than 0/],
    ['503:101%', /at most 100/],
    ['503:60%,reset:50%', /"reset:50%": the percentages add up to more than 100%/],
    ['503:5%,503:5%', /503 given twice/],
    ['latency:50-5ms', /"latency:50-5ms": A must not exceed B/],
    ['latency:5ms', /expected latency:A-Bms/],
    ['lost', /"lost": expected KIND:P%/],
  ])('refuses %j as a usage error naming the part', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(UsageError);
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });

  it('draws the same faults for the same seed, other faults for another, near the asked rates', () => {
    const spec = parseFaultSpec('503:20%,reset:10%,latency:0-9ms');
    const draws = (seed: number) => {
      const plan = faultPlan(spec, seed);
      return Array.from({ length: 2000 }, () => plan.next());
    };
    const a = draws(42);
    expect(draws(42)).toEqual(a);
    expect(draws(43)).not.toEqual(a);
    const share = (kind: string) => a.filter((d) => d.kind === kind).length / a.length;
    expect(share('503')).toBeGreaterThan(0.16);
    expect(share('503')).toBeLessThan(0.24);
    expect(share('reset')).toBeGreaterThan(0.07);
    expect(share('reset')).toBeLessThan(0.13);
    expect(a.every((d) => d.latencyMs >= 0 && d.latencyMs <= 9)).toBe(true);
    expect(new Set(a.map((d) => d.latencyMs)).size).toBe(10);
  });
});

describe('each fault kind on the wire', () => {
  it('429 and 503 come with Retry-After and an envelope, 500 with an envelope; the work is not done', async () => {
    for (const [kind, retryAfter] of [
      ['429', '1'],
      ['503', '1'],
      ['500', undefined],
    ] as const) {
      await withFaultyServer(`${kind}:100%`, async (server, calls, log) => {
        const reply = await postUser(server, 'u1');
        expect(reply.statusCode).toBe(Number(kind));
        expect(reply.headers['retry-after']).toBe(retryAfter);
        expect(await reply.body.json()).toMatchObject({ Content: null, Success: false });
        expect(calls).toEqual([]);
        expect(log).toEqual([
          expect.stringMatching(new RegExp(`^POST /api/v1/integrations/user ${kind} \\d+ms fault=${kind}$`)),
        ]);
      });
    }
  });

  it('reset destroys the connection before any work', async () => {
    await withFaultyServer('reset:100%', async (server, calls, log) => {
      await expect(postUser(server, 'u1')).rejects.toThrow();
      expect(calls).toEqual([]);
      expect(log).toEqual([expect.stringMatching(/^POST \/api\/v1\/integrations\/user reset \d+ms fault=reset$/)]);
    });
  });

  it('lost does the work, then destroys the connection: the client never hears', async () => {
    await withFaultyServer('lost:100%', async (server, calls, log) => {
      await expect(postUser(server, 'u1')).rejects.toThrow();
      expect(calls).toEqual(['u1']);
      expect(log).toEqual([expect.stringMatching(/^POST \/api\/v1\/integrations\/user lost \d+ms fault=lost$/)]);
    });
  });

  it('latency delays every answer within the range, and is logged', async () => {
    await withFaultyServer('latency:150-200ms', async (server, calls, log) => {
      const started = performance.now();
      const reply = await postUser(server, 'u1');
      expect(reply.statusCode).toBe(200);
      await reply.body.dump();
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
      expect(calls).toEqual(['u1']);
      expect(log[0]).toMatch(/^POST \/api\/v1\/integrations\/user 200 \d+ms latency=(1[5-9]\d|200)ms$/);
    });
  });

  it('leaves the OpenAPI document and refused tokens alone', async () => {
    await withFaultyServer('reset:100%', async (server, _calls, log) => {
      const openapi = await request(`${server.url}/api/v1/integrations/openapi.json`);
      expect(openapi.statusCode).toBe(200);
      await openapi.body.dump();
      const refused = await request(`${server.url}/api/v1/integrations/user`, {
        method: 'POST',
        headers: { authorization: 'EAPI wrong' },
      });
      expect(refused.statusCode).toBe(403);
      await refused.body.dump();
      expect(log.join('\n')).not.toContain('fault=');
    });
  });
});

describe('examctl local serve --faults', () => {
  it('a bad SPEC is a usage error (exit 2) naming the part, before anything starts', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir);
      const code = await runCli(
        ['--store', join(dir, 'store'), 'local', 'serve', '--port', '0', '--faults', '503:10%,boom:5%'],
        io.deps,
      );
      expect(code).toBe(2);
      expect(io.stderr.text).toContain('"boom:5%"');
      expect(io.stderr.text).not.toContain('listening');
      const seedOnly = testDeps(dir);
      expect(await runCli(['--store', join(dir, 'store'), 'local', 'serve', '--faults-seed', '3'], seedOnly.deps)).toBe(
        2,
      );
      expect(seedOnly.stderr.text).toContain('--faults-seed needs --faults');
      // The seed is read by the flag parsers (src/flags/flag-values.ts): a 32-bit whole number.
      for (const bad of ['-1', '1.5', 'x', '4294967296']) {
        const badSeed = testDeps(dir);
        expect(
          await runCli(
            [
              '--store',
              join(dir, 'store'),
              'local',
              'serve',
              '--port',
              '0',
              '--faults',
              '503:1%',
              '--faults-seed',
              bad,
            ],
            badSeed.deps,
          ),
        ).toBe(2);
        expectCoded(badSeed.stderr.text, 'E2001', '--faults-seed', '4294967295');
        expect(badSeed.stderr.text).not.toContain('listening');
      }
    });
  });
});
