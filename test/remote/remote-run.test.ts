import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * Whole remote runs (`examctl user sync --target remote`) against the fault-injecting server:
 * interrupt, a refused token, a service that stays down. What is asserted is the contract of
 * docs/cli-contract.md, "Exit status": exit code, report written, unsent rows `skipped`, no call after the end.
 */

const TOKEN = 'remote-run-token';
const USERS = 20;

let server: FaultServer;

beforeEach(async () => {
  server = await startFaultServer();
});

afterEach(async () => {
  await server.close();
});

/** An ok answer naming the user sent (one naming another fails the record: trial31 F07). */
const userReply = (request: { body: string }) =>
  okEnvelope({
    User: { ExternalId: (JSON.parse(request.body) as { ExternalId: string }).ExternalId },
    GroupErrors: [],
  });

async function writeUsers(dir: string): Promise<string> {
  const file = join(dir, 'users.json');
  const users = Array.from({ length: USERS }, (_, i) => ({
    ExternalId: `u-${i}`,
    FirstName: 'Ann',
    LastName: 'Lee',
    Email: `u-${i}@example.test`,
    Role: 'Candidate',
  }));
  await writeFile(file, JSON.stringify(users));
  return file;
}

type Report = {
  summary: { total: number; ok: number; failed: number; skipped: number };
  items: Array<{ id: string; status: string; errors: Array<{ message: string }> }>;
};

async function remoteSync(dir: string, extra: string[], signal?: AbortSignal) {
  const file = await writeUsers(dir);
  const reportFile = join(dir, 'report.json');
  const io = testDeps(dir, signal ? { signal } : {}, { EXAMCTL_TOKEN: TOKEN });
  const code = await runCli(
    [
      '--target',
      'remote',
      '--base-url',
      server.url,
      '--yes',
      '--report',
      reportFile,
      ...extra,
      'user',
      'sync',
      '--file',
      file,
    ],
    io.deps,
  );
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as Report;
  return { code, report, stderr: io.stderr.text, stdout: io.stdout.text };
}

describe('remote run: interrupt', () => {
  it('SIGINT during a sync with slow answers: in-flight calls finish, the rest is skipped, report written, exit 130', async () => {
    await withTempDir(async (dir) => {
      const interrupt = new AbortController();
      // Ctrl-C arrives while the third request is on the wire (the signal main.ts aborts on SIGINT).
      server.fallback = (request) => {
        if (server.requests.length === 3) interrupt.abort();
        return { ...userReply(request), delayMs: 30 };
      };
      const { code, report, stderr } = await remoteSync(dir, ['--concurrency', '2'], interrupt.signal);
      expect(code).toBe(130);
      expect(stderr).toContain('interrupted');
      const sent = server.requests.length;
      // Only what was already dispatched went out: at most the window (2) past the third request.
      expect(sent).toBeGreaterThanOrEqual(3);
      expect(sent).toBeLessThanOrEqual(4);
      expect(report.summary.total).toBe(USERS);
      expect(report.summary.ok).toBe(sent);
      expect(report.summary.skipped).toBe(USERS - sent);
      expect(report.items.slice(sent).every((item) => item.status === 'skipped')).toBe(true);
      // The ids of the ok items are exactly those the server received.
      const received = server.requests
        .map((request) => (JSON.parse(request.body) as { ExternalId: string }).ExternalId)
        .sort();
      expect(
        report.items
          .filter((item) => item.status === 'ok')
          .map((item) => item.id)
          .sort(),
      ).toEqual(received);
    });
  });

  it('an interrupt during a retry wait ends the wait at once: nothing more is sent (exit 130)', async () => {
    await withTempDir(async (dir) => {
      const interrupt = new AbortController();
      // The service asks to come back in 60 s; Ctrl-C must not wait that long.
      server.fallback = () => {
        queueMicrotask(() => interrupt.abort());
        return {
          status: 503,
          headers: { 'retry-after': '60' },
          body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'busy' }] },
        };
      };
      const { code, report } = await remoteSync(dir, ['--concurrency', '1'], interrupt.signal);
      expect(code).toBe(130);
      expect(server.requests.length).toBe(1);
      expect(report.summary.ok).toBe(0);
      expect(report.summary.skipped).toBe(USERS);
    });
  });
});

describe('remote run: a target that cannot be used', () => {
  it('403 ends the run at once with exit 3: not every row is tried, the rest is skipped', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 403,
        body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'not allowed' }] },
      };
      const { code, report, stderr } = await remoteSync(dir, ['--concurrency', '2']);
      expect(code).toBe(3);
      expect(stderr).toContain('refused the token (403)');
      expect(stderr).not.toContain(TOKEN);
      expect(server.requests.length).toBeLessThanOrEqual(2);
      expect(report.summary.total).toBe(USERS);
      expect(report.summary.ok).toBe(0);
      expect(report.summary.skipped).toBe(USERS);
      expect(report.items[0]!.errors[0]!.message).toContain('refused the token');
      expect(JSON.stringify(report)).not.toContain(TOKEN);
    });
  });

  it('403 with --json: the one JSON document on stdout says the run was refused, not only by its counts', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 403,
        body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'not allowed' }] },
      };
      const { code, stdout, report } = await remoteSync(dir, ['--concurrency', '2', '--json']);
      expect(code).toBe(3);
      const document = JSON.parse(stdout) as Report & { error: { exitCode: number; kind: string; status?: number } };
      expect(document.error).toMatchObject({ exitCode: 3, code: 'E3010', kind: 'refused' });
      expect(document.summary.skipped).toBe(USERS);
      expect((report as Report & { error?: unknown }).error).toMatchObject({ kind: 'refused' });
      expect(stdout).not.toContain(TOKEN);
    });
  });

  it('503 on every attempt: retried (Retry-After 0), then exit 3 naming the attempts; nothing after it is sent', async () => {
    await withTempDir(async (dir) => {
      server.fallback = { status: 503, headers: { 'retry-after': '0' }, body: '<html>down for maintenance</html>' };
      const { code, report, stderr } = await remoteSync(dir, ['--concurrency', '1']);
      expect(code).toBe(3);
      expect(server.requests.length).toBe(5);
      expect(stderr).toMatch(/failed after 5 attempts/);
      expect(report.summary.skipped).toBe(USERS);
      expect(report.items[0]!.errors[0]!.message).toMatch(/503/);
    });
  });

  it('500 is not retried: exit 3 with the server message', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 500,
        body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'database exploded' }] },
      };
      const { code, stderr } = await remoteSync(dir, ['--concurrency', '1']);
      expect(code).toBe(3);
      expect(server.requests.length).toBe(1);
      expect(stderr).toContain('database exploded');
    });
  });
});

describe('remote dry run', () => {
  it('needs no token and sends nothing', async () => {
    await withTempDir(async (dir) => {
      const file = await writeUsers(dir);
      const io = testDeps(dir);
      const code = await runCli(
        ['--target', 'remote', '--base-url', server.url, '--dry-run', '--json', 'user', 'sync', '--file', file],
        io.deps,
      );
      expect(io.stderr.text).not.toContain('no token');
      expect(code).toBe(0);
      expect(server.requests).toEqual([]);
      const report = JSON.parse(io.stdout.text) as Report & { dryRun: boolean };
      expect(report.dryRun).toBe(true);
      expect(report.summary.ok).toBe(USERS);
    });
  });
});
