import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';

/**
 * Whole remote runs against hostile answers (issues 22 and 26): what reaches every sink (stderr,
 * the --json document, the --report file, the run journal) and how the run ends.
 */
const TOKEN = 'run-secret-token-ABCDEFGHIJ';
const PASSWORD = 'Hunter2-correct-horse';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function allFiles(dir: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

async function sync(dir: string, url: string, extra: string[] = []) {
  const file = join(dir, 'users.json');
  const users = Array.from({ length: 3 }, (_, i) => ({ ExternalId: `u-${i}`, FirstName: 'Ann', LastName: 'Lee', Email: `u${i}@example.test`, Role: 'Candidate', Password: PASSWORD }));
  await writeFile(file, JSON.stringify(users));
  const io = testDeps(dir, {}, { EXAMCTL_TOKEN: TOKEN, EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'remote', '--base-url', url, '--yes', '--json', '--report', join(dir, 'report.json'), ...extra, 'user', 'sync', '--file', file], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('hostile answers through a whole run', () => {
  it('an envelope echoing the token and the record\'s password: neither reaches stderr, --json, --report or the journal', async () => {
    server = await startHostileServer((request, res) => {
      json(res, 400, { Content: null, Success: false, Errors: [{ Code: 213, Message: `bad token ${TOKEN}; Password '${PASSWORD}' is too weak` }] });
      void request;
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url);
      expect(code).toBe(1);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(everything).toContain('[redacted]');
      expect(everything).not.toContain(TOKEN.slice(0, 8));
      // The users file holds the password; every other file must not.
      const sinks = everything.split(JSON.stringify(PASSWORD)).join('');
      expect(sinks).not.toContain(PASSWORD.slice(0, 8));
    });
  });

  it('a 500 page of 176 characters then the token: no part of it survives the cut', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(`<html><body>${'e'.repeat(176)}${TOKEN}</body></html>`);
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url);
      expect(code).toBe(3);
      const everything = `${stdout}\n${stderr}\n${await allFiles(dir)}`;
      expect(everything).not.toContain(TOKEN.slice(0, 8));
    });
  });

  it('a redirect: exit 3 at the first answer naming the Location; no record is marked failed', async () => {
    server = await startHostileServer((_request, res) => {
      res.writeHead(301, { location: 'https://exam.example.test/api/v1/integrations/user' });
      res.end();
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(3);
      expect(stderr).toContain('set --base-url to https://exam.example.test');
      const report = JSON.parse(stdout) as { summary: { failed: number } };
      expect(report.summary.failed).toBe(0);
      expect(server!.requests).toHaveLength(1);
    });
  });

  it('{"Success":"false"} with 200 is not ok', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, '{"Success":"false","Content":null,"Errors":null}'));
    await withTempDir(async (dir) => {
      const { code, stdout } = await sync(dir, server!.url);
      expect(code).toBe(1);
      expect((JSON.parse(stdout) as { summary: { ok: number } }).summary.ok).toBe(0);
    });
  });

  it('a token outside visible ASCII is exit 2 before anything is sent, the token not echoed', async () => {
    server = await startHostileServer((_request, res) => json(res, 200, { Content: null, Success: true }));
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 'tok€n-secret-part', EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      await writeFile(join(dir, 'u.json'), '[]');
      const code = await runCli(['--target', 'remote', '--base-url', server!.url, '--yes', 'user', 'sync', '--file', join(dir, 'u.json')], io.deps);
      expect(code).toBe(2);
      expect(io.stderr.text).toContain('outside visible ASCII');
      expect(io.stderr.text).not.toContain('secret-part');
      expect(server!.requests).toHaveLength(0);
    });
  });
});

describe('retries counted', () => {
  it('the summary and the JSON report say how many requests were retried, and why', async () => {
    let calls = 0;
    server = await startHostileServer((_request, res) => {
      calls += 1;
      // Two 503s then a timeout-free success for the first record; the others succeed at once.
      if (calls <= 2) json(res, 503, 'busy', { 'retry-after': '0' });
      else json(res, 200, { Content: { User: {}, GroupErrors: [] }, Success: true, Errors: null });
    });
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await sync(dir, server!.url, ['--concurrency', '1']);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as { summary: { retried: number; retriedByCause: Record<string, number> } };
      expect(report.summary.retried).toBe(2);
      expect(report.summary.retriedByCause).toEqual({ 503: 2 });
      expect(stderr).toContain('retried 2 requests (503: 2)');
    });
  });
});
