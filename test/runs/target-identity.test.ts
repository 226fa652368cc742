import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetIdentity } from '../../src/report/run-report.js';
import { memoryDir } from '../../src/context/target.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/**
 * One server, one identity (report/run-report.ts, `targetIdentity`): the sync memory's place and
 * the later-run check of `runs resume` take it. A base URL's scheme and host are not
 * case-sensitive; what an identity was for a lower-case URL stays the same string, so a memory
 * written before is still found.
 */

const remote = (baseUrl: string) => targetIdentity({ kind: 'remote', baseUrl });

describe('targetIdentity', () => {
  it('is the base URL as given for a lower-case base URL', () => {
    expect(remote('http://127.0.0.1:8080')).toBe('remote http://127.0.0.1:8080');
    expect(remote('https://exam.example.com/')).toBe('remote https://exam.example.com');
    expect(remote('https://exam.example.com/Tenant-A//')).toBe('remote https://exam.example.com/Tenant-A');
    expect(targetIdentity({ kind: 'local', store: '/Home/Me/.examctl-store' })).toBe('local /Home/Me/.examctl-store');
  });

  it('folds the case of the scheme and host, never of the path', () => {
    expect(remote('HTTPS://Exam.Example.COM/')).toBe(remote('https://exam.example.com'));
    expect(remote('HTTP://127.0.0.1:8080')).toBe(remote('http://127.0.0.1:8080/'));
    expect(remote('https://exam.example.com/Tenant-A')).not.toBe(remote('https://exam.example.com/tenant-a'));
  });

  it('drops a default port: http://localhost:80 is http://localhost, one memory (trial35 F05, F07)', () => {
    expect(remote('http://localhost:80')).toBe('remote http://localhost');
    expect(remote('HTTPS://Exam.Example.com:443/Tenant-A/')).toBe(remote('https://exam.example.com/Tenant-A'));
    expect(memoryDir('/s', { kind: 'remote', baseUrl: 'http://localhost:80' })).toBe(
      memoryDir('/s', { kind: 'remote', baseUrl: 'http://localhost' }),
    );
    expect(remote('https://exam.example.com:8443')).not.toBe(remote('https://exam.example.com'));
  });

  it("never reads an older examctl's directory of the URL with its default port; moved as docs/sync.md says, it is found", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-identity-'));
    const [spelt, plain] = [
      { kind: 'remote', baseUrl: 'https://exam.example.test:443/' },
      { kind: 'remote', baseUrl: 'https://exam.example.test' },
    ] as const;
    const options = { lock: false, lockTimeoutMs: 0, readOnly: false };
    const memory = await SyncMemory.open(dir, spelt, 'users', options);
    memory.record('u1', { digest: 'd1', run: 'r1' });
    await memory.close();
    // The directory names of the recipe: the first 16 hex digits of the identity's SHA-256.
    const named = (identity: string) => createHash('sha256').update(identity).digest('hex').slice(0, 16);
    expect(memoryDir(dir, plain)).toBe(join(dir, named('remote https://exam.example.test')));
    const legacy = join(dir, named('remote https://exam.example.test:443'));
    await rename(memoryDir(dir, spelt), legacy);
    const read = { ...options, readOnly: true };
    for (const target of [plain, spelt])
      expect((await SyncMemory.open(dir, target, 'users', read)).entries.size).toBe(0);
    await rename(legacy, memoryDir(dir, plain));
    for (const target of [plain, spelt])
      expect((await SyncMemory.open(dir, target, 'users', read)).entries.size).toBe(1);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('a sync memory found whatever the case of the base URL', () => {
  let dir: string;
  let env: Record<string, string>;
  let service: Awaited<ReturnType<typeof startFaultServer>>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-identity-'));
    env = {
      EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'),
      EXAMCTL_SYNC_DIR: join(dir, 'synced'),
      EXAMCTL_TOKEN: 'dev-token',
    };
    service = await startFaultServer();
    service.fallback = (request) =>
      okEnvelope({
        User: { ExternalId: (JSON.parse(request.body) as { ExternalId: string }).ExternalId },
        GroupErrors: [],
      });
    await writeUsersCsv(join(dir, 'users.csv'), range('stu', 20));
  });
  afterEach(async () => {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('localhost after 127.0.0.1 ): another memory, so none found; stderr names the one under the other spelling, also when --require-memory refuses', async () => {
    const sync = (baseUrl: string, ...flags: string[]) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'remote',
          '--base-url',
          baseUrl,
          '--allow-insecure-http',
          '--yes',
          '--changed-only',
          ...flags,
        ],
        dir,
        env,
      );
    expect((await sync(service.url)).code).toBe(0);
    const other = service.url.replace('127.0.0.1', 'localhost');
    const note = `note: the sync directory holds a memory for remote ${service.url}: if that is this server under another name, give the base URL as it was given then`;
    const refused = await sync(other, '--require-memory');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(note);
    // A dry run (no request: however localhost resolves here) says it too.
    const night = await sync(other, '--dry-run');
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain(note);
    // Found under its own spelling: no note.
    expect((await sync(service.url)).stderr).not.toContain('note: the sync directory holds');
  });

  it('HTTP://127.0.0.1:PORT/ after http://127.0.0.1:PORT: the memory is found, nothing unchanged is sent', async () => {
    const sync = (baseUrl: string) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'remote',
          '--base-url',
          baseUrl,
          '--allow-insecure-http',
          '--yes',
          '--changed-only',
        ],
        dir,
        env,
      );
    expect((await sync(service.url)).code).toBe(0);
    expect(service.requests).toHaveLength(20);
    const shouted = await sync(`${service.url.replace('http://', 'HTTP://')}/`);
    expect(shouted.code, shouted.stderr).toBe(0);
    expect(shouted.stderr).not.toContain('no sync memory');
    expect(shouted.stderr).toContain('20 unchanged (not sent)');
    expect(service.requests).toHaveLength(20);
    expect(await readdir(join(dir, 'synced'))).toHaveLength(1);
  });
});
