import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';

/**
 * A full disk at a run's start (trial15 f05, f06): the memory's rewrite (compaction) that cannot
 * be written is skipped, said once; any other write the run needs (a memory begun anew, a state
 * service's private copy, synced import) is exit 3 naming it, never an internal error (70).
 */
const full = vi.hoisted(() => ({ on: false }));
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
vi.mock('../../src/system/atomic-file.js', async (original) => {
  const real = await original<typeof import('../../src/system/atomic-file.js')>();
  // The config and token files are written through ReplacementFile (config-file.ts): its open fails too.
  const ReplacementFile = new Proxy(real.ReplacementFile, {
    get: (target, name) => (name === 'open' && full.on ? () => Promise.reject(enospc()) : Reflect.get(target, name)),
  });
  return {
    ...real,
    ReplacementFile,
    writeFileAtomic: async (...args: Parameters<typeof real.writeFileAtomic>) =>
      full.on ? Promise.reject(enospc()) : real.writeFileAtomic(...args),
  };
});
vi.mock('../../src/system/private-temp.js', async (original) => {
  const real = await original<typeof import('../../src/system/private-temp.js')>();
  return {
    ...real,
    makePrivateTempDir: async (purpose: string) =>
      full.on ? Promise.reject(enospc()) : real.makePrivateTempDir(purpose),
  };
});

const { memoryFile } = await import('../../src/sync/memory-files.js');
const { SyncMemory } = await import('../../src/sync/sync-memory.js');
const { runCli } = await import('../../src/cli/run-cli.js');
const { testDeps, withTempDir } = await import('../cli/helpers.js');
const { stateServerPerTest } = await import('../support/state-server.js');

const target = { kind: 'remote', baseUrl: 'https://exam.example.test/' } as const;
const server = stateServerPerTest();

async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_LOCK_TIMEOUT_MS: '0' });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('a full disk at the start of a run', () => {
  it('an overgrown memory is used as it is, said once', () =>
    withTempDir(async (dir) => {
      full.on = true;
      try {
        const grown = await SyncMemory.open(dir, target, 'users', {
          lock: true,
          lockTimeoutMs: 0,
          readOnly: false,
        });
        for (let i = 0; i < 12_000; i++) grown.record(`u${i % 3}`, { digest: `d${i}`, run: 'r1' });
        await grown.close();
        const before = readFileSync(memoryFile(dir, target, 'users'), 'utf8');
        const notes: string[] = [];
        const next = await SyncMemory.open(dir, target, 'users', {
          lock: true,
          lockTimeoutMs: 0,
          readOnly: false,
          onNote: (note) => notes.push(note),
        });
        expect(notes).toEqual([
          `the sync memory ${memoryFile(dir, target, 'users')} was not rewritten (no space left on the device (ENOSPC)): used as it is; a later run rewrites it`,
        ]);
        expect(next.entries.get('u2')?.digest).toBe('d11999');
        await next.close();
        expect(readFileSync(memoryFile(dir, target, 'users'), 'utf8')).toBe(before);
      } finally {
        full.on = false;
      }
    }));

  it('a state service memory whose private copy cannot be made, and synced import, are exit 3 naming what', () =>
    withTempDir(async (dir) => {
      writeFileSync(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies\nfd1,F,L,fd1@example.test,fd1,Candidate,\n',
      );
      const sync = (syncDir: string) =>
        cli(dir, [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--sync-dir',
          syncDir,
        ]);
      expect((await sync('synced')).code).toBe(0);
      expect(
        (
          await cli(dir, [
            'synced',
            'export',
            '--target',
            'local',
            '--store',
            'store',
            '--sync-dir',
            'synced',
            '--out',
            'm.json',
          ])
        ).code,
      ).toBe(0);
      full.on = true;
      try {
        const copy = await sync(server.address('full'));
        expect(copy.code, copy.stderr).toBe(3);
        expectCoded(copy.stderr, 'E3000', 'sync memory', 'temp folder', 'ENOSPC');
        const imported = await cli(dir, [
          'synced',
          'import',
          'm.json',
          '--target',
          'local',
          '--store',
          'store',
          '--sync-dir',
          'synced',
          '--force',
        ]);
        expect(imported.code, imported.stderr).toBe(3);
        expectCoded(imported.stderr, 'E3000', 'users.ndjson', 'ENOSPC');
      } finally {
        full.on = false;
      }
    }));

  it('config set-profile: exit 3 naming the config file, never 70; the old config kept (trial23 f06)', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['config', 'set-profile', 'a', '--base-url', 'https://a.example.test'])).code).toBe(0);
      const config = join(dir, '.config', 'config.json');
      const before = readFileSync(config, 'utf8');
      full.on = true;
      const failed = await cli(dir, ['config', 'set-profile', 'b', '--base-url', 'https://b.example.test']).finally(
        () => (full.on = false),
      );
      expect(failed.code).toBe(3);
      expectCoded(failed.stderr, 'E3000', config, 'ENOSPC');
      expect(readFileSync(config, 'utf8')).toBe(before);
    }));
});
