/**
 * The one home of every place that uses one (src/system/user-dirs.ts userHome; docs/windows.md,
 * "Where examctl keeps its files"): an empty or relative HOME counts as unset (the account's own
 * home), never the current directory; with no home at all a command runs when every directory is
 * given, else exit 2 naming what to set. The private temp folder's own refusal reaches the user.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { configDir, expandPath } from '../../src/context/config-file.js';
import { resolveRunsDir } from '../../src/runs/runs-dir.js';
import { currentTrustContext } from '../../src/system/trusted-place.js';
import { userHome } from '../../src/system/user-dirs.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { ROOT } from '../support/cli.js';

/** On: no passwd entry for this uid (a container's `--user 12345`), as Node then says it. */
const noAccount = vi.hoisted(() => ({ on: false }));
vi.mock('node:os', async (original) => {
  const os = await original<typeof import('node:os')>();
  const gone = () => {
    if (noAccount.on)
      throw new Error('A system error occurred: uv_os_homedir returned ENOENT (no such file or directory)');
  };
  const homedir = () => (gone(), os.homedir());
  const info = ((options?: { encoding: BufferEncoding }) => (gone(), os.userInfo(options))) as typeof os.userInfo;
  return { ...os, homedir, userInfo: info, default: { ...os, homedir, userInfo: info } };
});

const kept = { HOME: process.env.HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME, TMPDIR: process.env.TMPDIR };
beforeEach(() => {
  delete process.env.XDG_STATE_HOME;
});
afterEach(() => {
  noAccount.on = false;
  for (const [name, value] of Object.entries(kept)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe.skipIf(process.platform === 'win32')('the home', () => {
  it('HOME= (empty) or relative: the account’s home for config, runs, ~ and the store search’s stop, never the current directory', () => {
    process.env.HOME = '';
    const account = userInfo().homedir;
    for (const HOME of ['', 'rel']) {
      expect(userHome({ HOME })).toBe(account);
      expect(configDir({ HOME }, 'linux')).toBe(join(account, '.config', 'examctl'));
      expect(resolveRunsDir(undefined, { HOME }, 'linux')).toBe(join(account, '.local', 'state', 'examctl', 'runs'));
      expect(resolveRunsDir(undefined, { HOME, XDG_STATE_HOME: '' }, 'linux')).toBe(
        join(account, '.local', 'state', 'examctl', 'runs'),
      );
      expect(expandPath('~/token', '/base', { HOME })).toBe(join(account, 'token'));
      expect(currentTrustContext({ HOME }).home).toBe(account);
    }
  });

  it('no HOME and no account home: with every directory given the job runs; else exit 2 naming what to set', async () => {
    noAccount.on = true;
    delete process.env.HOME;
    await withTempDir(async (dir) => {
      const users = join(ROOT, 'fixtures', 'users.csv');
      const given = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'sync') };
      const all = testDeps(dir, {}, given);
      expect(
        await runCli(['--store', join(dir, 's'), 'user', 'sync', '--file', users], all.deps),
        all.stderr.text,
      ).toBe(0);
      const noRuns = testDeps(dir);
      expect(await runCli(['--store', join(dir, 's'), 'user', 'sync', '--file', users], noRuns.deps)).toBe(2);
      expectCoded(noRuns.stderr.text, 'E2006', 'HOME', 'EXAMCTL_RUNS_DIR');
      expect(noRuns.stderr.text).toMatch(/E2006: .*\buid \d+/);
      expect(() => configDir({}, 'linux')).toThrow(
        /^HOME is not set and uid \d+ has no home directory: set HOME \(or EXAMCTL_CONFIG_DIR\)$/,
      );
      expect(() => expandPath('~/t', dir, { HOME: 'rel' })).toThrow(
        /^HOME is not an absolute path and .*: set HOME \(or an absolute path for ~\/t\)$/,
      );
      expect(currentTrustContext({}).home).toBeUndefined();
    });
  });

  it('another user’s (or a link’s) examctl-<uid> in the temp folder: its own refusal (exit 2) is told, not the first place’s error', async () => {
    await withTempDir(async (dir) => {
      // The first place (beside the runs directory) cannot be made: HOME is a file.
      await writeFile(join(dir, 'file'), '');
      process.env.HOME = join(dir, 'file');
      process.env.TMPDIR = join(dir, 'tmp');
      await mkdir(join(dir, 'tmp', 'elsewhere'), { recursive: true });
      const planted = join(dir, 'tmp', `examctl-${process.getuid?.() ?? 'user'}`);
      await symlink(join(dir, 'tmp', 'elsewhere'), planted);
      vi.resetModules();
      const { privateTempRoot } = await import('../../src/system/private-temp.js');
      const refusal = await privateTempRoot().catch((error: unknown) => error as { message: string; exitCode: number });
      expect(refusal).toMatchObject({ exitCode: 2 });
      // The facts: the path, and that it is not a folder of the user's.
      expect((refusal as { message: string }).message).toContain(
        `${planted}: the private temp folder is not a directory of yours`,
      );
    });
  });
});
