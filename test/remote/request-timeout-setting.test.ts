import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { answeredAsPlatform } from '../support/platform-store-route.js';

/**
 * EXAMCTL_REQUEST_TIMEOUT_MS (docs/remote.md, "Limits, timeouts, retries"): a stalled server
 * ends the run by the setting, not after the fixed 60 s a try (which would pass the test's
 * limit); 0 and absurd values are refused before anything is sent. The stall is the server's own
 * (it never answers one id), known to the test by the requests it counted, never by a delay.
 */

const ids = range('stu', 6);
const stalled = ids[2]!;

let dir: string;
let env: Record<string, string>;
let server: http.Server;
let url: string;
/** Every request the server read, by ExternalId. */
let seen: string[];
/** How the server stalls `stalled`: no answer at all, or a 200 whose body never ends. */
let stall: 'headers' | 'body';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-request-timeout-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_TOKEN: 'dev-token' };
  await writeUsersCsv(join(dir, 'users.csv'), ids);
  seen = [];
  server = http.createServer((req, res) => {
    if (answeredAsPlatform(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const user = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ExternalId: string };
      seen.push(user.ExternalId);
      if (user.ExternalId === stalled) {
        if (stall === 'body') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"Content":');
        }
        return; // never answered (or never finished)
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Content: { User: user, GroupErrors: [] }, Success: true, Errors: null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const sync = (timeout: string, ...flags: string[]) =>
  examctl(
    [
      'user',
      'sync',
      '--file',
      'users.csv',
      '--target',
      'remote',
      '--base-url',
      url,
      '--allow-insecure-http',
      '--yes',
      '--concurrency',
      '1',
      '--json',
      ...flags,
    ],
    dir,
    {
      ...env,
      EXAMCTL_REQUEST_TIMEOUT_MS: timeout,
    },
  );

describe('EXAMCTL_REQUEST_TIMEOUT_MS', () => {
  it.each([
    ['0', 'must be from 100 to 3600000 milliseconds (0.1 s to 1 hour), got 0'],
    ['99', 'must be from 100 to 3600000 milliseconds (0.1 s to 1 hour), got 99'],
    ['86400000', 'must be from 100 to 3600000 milliseconds (0.1 s to 1 hour), got 86400000'],
    ['2s', 'must be a whole number of milliseconds, got "2s"'],
  ])('%s is refused, exit 2, nothing sent', async (value, message) => {
    const run = await sync(value);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`EXAMCTL_REQUEST_TIMEOUT_MS ${message}`);
    expect(seen).toEqual([]);
  });

  it('a server that never answers: each attempt ends at the setting, retried, then the run stops (exit 3, resumable)', async () => {
    stall = 'headers';
    const run = await sync('200');
    expect(run.code, run.stderr).toBe(3);
    expectCoded(run.stderr, 'E3001', '5 attempts', '200 ms');
    // The ids before it (on a loaded machine one may itself pass the setting once and be tried
    // again: a timeout is a timeout), then the stalled one tried five times; nothing after it.
    expect(seen.filter((id) => id === stalled)).toHaveLength(5);
    expect(seen.slice(-5)).toEqual([stalled, stalled, stalled, stalled, stalled]);
    expect(new Set(seen)).toEqual(new Set(ids.slice(0, 3)));
    const item = (JSON.parse(run.stdout) as { items: { id: string; status: string; errors: { message: string }[] }[] })
      .items[2]!;
    expect(item).toMatchObject({ id: stalled, status: 'skipped' });
    expect(item.errors[0]!.message).toMatch(
      /^not done: the service gave no definite answer .*; it may have been applied/,
    );
  });

  it('a 200 whose body never ends: the answer is lost at the setting, never sent again; the others go on', async () => {
    stall = 'body';
    const run = await sync('300');
    expect(run.code, run.stderr).toBe(3);
    // The stalled id is sent once and never again (its answer began: it may have been applied);
    // every other id is sent (on a loaded machine one may pass the setting once and be retried).
    expect(seen.filter((id) => id === stalled)).toEqual([stalled]);
    expect(new Set(seen)).toEqual(new Set(ids));
    const items = (JSON.parse(run.stdout) as { items: { id: string; status: string }[] }).items;
    expect(items.map((item) => item.status)).toEqual(['ok', 'ok', 'skipped', 'ok', 'ok', 'ok']);
  });
});
