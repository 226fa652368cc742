import { PassThrough } from 'node:stream';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { ownStartTicks, processAlive } from '../../src/system/process-liveness.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * The Windows code paths found by a real Windows Node under Wine (docs/windows.md), played on
 * Linux by injecting the platform; `npm run test:interop` runs them under Wine for real.
 */
const held = vi.hoisted(() => ({ path: undefined as RegExp | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  // As Windows answers opening a file Excel holds with writes denied.
  const open = (async (path: Parameters<typeof actual.open>[0], ...rest: unknown[]) => {
    if (held.path?.test(String(path)) && rest[0] === 'r+')
      throw Object.assign(new Error(`EBUSY: resource busy or locked, open '${String(path)}'`), { code: 'EBUSY' });
    return (actual.open as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof actual.open;
  return { ...actual, open, default: { ...actual, open } };
});

describe('Windows code paths', () => {
  it('--out on a file another program holds: exit 2 with the "close it in Excel" hint', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.xlsx'), 'open in Excel');
      held.path = /users\.xlsx$/;
      try {
        const io = testDeps(dir, { platform: 'win32' });
        expect(await runCli(['template', 'users', '-o', 'xlsx', '--out', 'users.xlsx'], io.deps)).toBe(2);
        expectCoded(io.stderr.text, 'E2000', 'users.xlsx', 'EBUSY');
        expect(io.stderr.text).toContain('close it in Excel');
        expect(await readFile(join(dir, 'users.xlsx'), 'utf8')).toBe('open in Excel');
      } finally {
        held.path = undefined;
      }
    }));

  it('login --with-token reads a UTF-16 token on stdin (BOM, CRLF) as --token-file does, and says no 0600 on Windows', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_CONFIG_DIR: join(dir, 'config') };
      const login = async (bytes: Buffer, platform: NodeJS.Platform) => {
        const stdin = new PassThrough();
        stdin.end(bytes);
        const io = testDeps(dir, { stdin, platform }, env);
        const code = await runCli(
          ['login', '--profile', 'p', '--base-url', 'https://exam.example.test', '--no-verify', '--with-token'],
          io.deps,
        );
        return { code, stderr: io.stderr.text };
      };
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('tok-ABC123\r\n', 'utf16le')]);
      const windows = await login(utf16, 'win32');
      expect(windows.code).toBe(0);
      expect(await readFile(join(dir, 'config', 'p.token'), 'utf8')).toMatch(/^tok-ABC123\s*$/);
      expect(windows.stderr).not.toContain('0600');
      expect(windows.stderr).toContain("folder's access list");
      const linux = await login(Buffer.from('tok-DEF456\n'), 'linux');
      expect(linux.code).toBe(0);
      expect(linux.stderr).toContain('mode 0600');
      // UTF-16 without a BOM is not a token: refused with the hint, nothing stored.
      const bare = await login(Buffer.from('tok-XYZ789', 'utf16le'), 'win32');
      expect(bare.code).toBe(2);
      expectCoded(bare.stderr, 'E2000', 'token');
      expect(await readFile(join(dir, 'config', 'p.token'), 'utf8')).toMatch(/^tok-DEF456\s*$/);
    }));

  it('doctor does not claim "not open to other users" on Windows', () =>
    withTempDir(async (dir) => {
      const doctor = async (platform: NodeJS.Platform) => {
        const io = testDeps(
          dir,
          { platform },
          { EXAMCTL_CONFIG_DIR: join(dir, 'config'), EXAMCTL_RUNS_DIR: join(dir, 'runs') },
        );
        await runCli(['--store', join(dir, 'store'), 'doctor', '--json'], io.deps);
        return (
          JSON.parse(io.stdout.text) as { checks: { name: string; status: string; detail: string }[] }
        ).checks.find((check) => check.name === 'permissions');
      };
      expect(await doctor('linux')).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining('not open to other users'),
      });
      const windows = await doctor('win32');
      expect(windows?.status).toBe('skip');
      expect(windows?.detail).not.toContain('not open to other users');
      expect(windows?.detail).toContain('not checked on Windows');
    }));

  it('process liveness reads /proc on Linux only', () => {
    expect(ownStartTicks('linux')).toEqual(expect.any(Number));
    expect(ownStartTicks('win32')).toBeUndefined();
    // A start time that is not this process's: /proc says "another process" on Linux; elsewhere only kill(pid, 0) asks.
    const wrong = (ownStartTicks('linux') ?? 0) + 1;
    expect(processAlive(process.pid, wrong, 'linux')).toBe(false);
    expect(processAlive(process.pid, wrong, 'win32')).toBe(true);
    expect(processAlive(process.pid, wrong, 'darwin')).toBe(true);
  });
});
