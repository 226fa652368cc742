import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetIdentity } from '../../src/report/run-report.js';
import { memoryDir, SyncMemory } from '../../src/sync/sync-memory.js';
import { range, ROOT, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/**
 * One server, one identity (report/run-report.ts, `targetIdentity`): the sync memory's place and
 * the later-run check of `runs resume` take it. A base URL's scheme and host are not
 * case-sensitive; what an identity was for a lower-case URL stays the same string, so a memory
 * written before is still found.
 */

const remote = (baseUrl: string) => targetIdentity({ kind: 'remote', baseUrl });

/**
 * A users memory of http://127.0.0.1 (and a schedules one, if asked, kept aside in the test's dir)
 * copied where an older examctl kept it, under the default port: two memories of one server.
 */
async function twoMemories(withSchedules = false) {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-identity-'));
  const [synced, target] = [join(dir, 'synced'), { kind: 'remote', baseUrl: 'http://127.0.0.1' }] as const;
  for (const [kind, id] of withSchedules
    ? ([
        ['users', 'stu-1'],
        ['schedules', 'S-1'],
      ] as const)
    : ([['users', 'stu-1']] as const)) {
    const memory = await SyncMemory.open(synced, target, kind, { lock: false, lockTimeoutMs: 0, readOnly: false });
    memory.record(id, { digest: 'd1', run: 'r1' });
    await memory.close();
  }
  const [own, old] = [
    memoryDir(synced, target),
    join(synced, createHash('sha256').update('remote http://127.0.0.1:80').digest('hex').slice(0, 16)),
  ];
  if (withSchedules) await rename(join(own, 'schedules.ndjson'), join(dir, 'schedules.ndjson'));
  await cp(own, old, { recursive: true });
  await writeUsersCsv(join(dir, 'users.csv'), range('stu', 2));
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: synced, EXAMCTL_TOKEN: 'dev-token' };
  return { dir, synced, own, old, env };
}

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

  it('finds a memory an older examctl kept under the base URL with its default port', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-identity-'));
    const [spelt, plain] = [
      { kind: 'remote', baseUrl: 'https://exam.example.test:443/' },
      { kind: 'remote', baseUrl: 'https://exam.example.test' },
    ] as const;
    const options = { lock: false, lockTimeoutMs: 0, readOnly: false };
    const memory = await SyncMemory.open(dir, spelt, 'users', options);
    memory.record('u1', { digest: 'd1', run: 'r1' });
    await memory.close();
    // Where it was kept: the digest of its identity as given then.
    const legacy = join(
      dir,
      createHash('sha256').update('remote https://exam.example.test:443').digest('hex').slice(0, 16),
    );
    await rename(memoryDir(dir, spelt), legacy);
    for (const target of [plain, spelt])
      expect((await SyncMemory.open(dir, target, 'users', { ...options, readOnly: true })).entries.size).toBe(1);
    await rm(dir, { recursive: true, force: true });
  });

  it('where an older examctl kept one under the default port beside it: refused, naming both and the one written last (trial36 F04)', async () => {
    const { dir, synced, own, old, env } = await twoMemories();
    const later = new Date(Date.now() + 60_000);
    await utimes(join(old, 'users.ndjson'), later, later);
    for (const flags of [['--disable-missing'], ['--dry-run']]) {
      const run = await examctl(
        [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1',
          '--allow-insecure-http',
          '--yes',
          '--changed-only',
          ...flags,
        ],
        dir,
        env,
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `the sync memories ${own} and ${old} (an older examctl's) are of one server: keep ${own} after moving into it ${join(old, 'users.ndjson')} (written last), move ${old} out of ${synced}`,
      );
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('judged by the memory of the kind run, not by the directory: the newer users memory may sit in the other one (trial37 F06)', async () => {
    const { dir, synced, own, old, env } = await twoMemories();
    // The older build's users memory is older; its directory is newer (a schedules memory written there since).
    const [earlier, later] = [new Date(Date.now() - 120_000), new Date(Date.now() + 60_000)];
    await utimes(join(old, 'users.ndjson'), earlier, earlier);
    await utimes(join(own, 'users.ndjson'), later, later);
    await utimes(own, earlier, earlier);
    await utimes(old, later, later);
    const run = await examctl(
      [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--target',
        'remote',
        '--base-url',
        'http://127.0.0.1',
        '--allow-insecure-http',
        '--yes',
        '--changed-only',
      ],
      dir,
      env,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `the sync memories ${own} and ${old} (an older examctl's) are of one server: keep ${own} (no memory in the other is newer), move ${old} out of ${synced}`,
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('one verdict for the run of each kind, doctor and synced export|forget; followed, no newer memory is lost (trial39 F01)', async () => {
    const { dir, synced, own, old, env } = await twoMemories(true);
    const [earlier, later] = [new Date(Date.now() - 120_000), new Date(Date.now() + 60_000)];
    await utimes(join(old, 'users.ndjson'), earlier, earlier);
    await writeFile(join(dir, 'sittings.csv'), await readFile(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8'));
    const remote = ['--target', 'remote', '--base-url', 'http://127.0.0.1', '--allow-insecure-http', '--yes'];
    const said = async () => {
      const runs = [
        ['user', 'sync', '--file', 'users.csv', '--changed-only'],
        ['schedule', 'push', '--file', 'sittings.csv', '--changed-only', '--upsert'],
        ['doctor'],
        ['synced', 'export', '--out', 'e.ndjson'],
        ['synced', 'forget'],
      ];
      const verdicts: (string | undefined)[] = [];
      for (const args of runs)
        verdicts.push(
          /are of one server: (.*)/.exec(
            await examctl([...remote, ...args], dir, env).then((run) => run.stderr + run.stdout),
          )?.[1],
        );
      return verdicts;
    };
    // Neither holds a schedules memory: no "written last" by a missing file; own's users memory is newer.
    expect(new Set(await said())).toEqual(
      new Set([`keep ${own} (no memory in the other is newer), move ${old} out of ${synced}`]),
    );
    // Each kind's newest in another directory: keep own, the other's newer kind moved into it first.
    await rename(join(dir, 'schedules.ndjson'), join(old, 'schedules.ndjson'));
    expect(new Set(await said())).toEqual(
      new Set([
        `keep ${own} after moving into it ${join(old, 'schedules.ndjson')} (written last), move ${old} out of ${synced}`,
      ]),
    );
    await rename(join(old, 'schedules.ndjson'), join(own, 'schedules.ndjson'));
    await rename(old, join(dir, 'old'));
    // The night after: one memory, both kinds kept.
    const next = await examctl(
      [...remote, 'user', 'sync', '--file', 'users.csv', '--changed-only', '--dry-run'],
      dir,
      env,
    );
    expect(next.code, next.stderr).toBe(0);
    expect((await readdir(own)).filter((name) => name.endsWith('.ndjson')).sort()).toEqual([
      'schedules.ndjson',
      'users.ndjson',
    ]);
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
