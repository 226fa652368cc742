import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configPath,
  listProfiles,
  loadConfig,
  removeProfile,
  saveConfig,
  setProfile,
} from '../../src/context/config-file.js';
import { resolveRemoteTarget, type RemoteTargetInput } from '../../src/context/remote-settings.js';
import { targetOnce } from '../../src/context/target.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { UsageError } from '../../src/system/errors.js';

let dir: string;
let env: Record<string, string | undefined>;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'examctl-remote-settings-'));
  env = { EXAMCTL_CONFIG_DIR: path.join(dir, 'config'), HOME: dir };
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** The remote target a command gets, with its token (each test here gives one). */
async function withToken(input: RemoteTargetInput) {
  const target = await resolveRemoteTarget(input);
  expect(target?.token).toBeDefined();
  return target!;
}

/** The refusal of a send with no token: E2008 (docs/errors.md), naming where a token comes from. */
const NO_TOKEN = { code: 'E2008', message: expect.stringContaining('EXAMCTL_TOKEN') };

/** What sending to the remote target does, as every command does it (target.ts): refused when no base URL or no token is configured. */
async function sendingFails(given: Record<string, string | undefined>): Promise<unknown> {
  const deps: CommandDeps = {
    stdout: { write: () => undefined },
    stderr: { write: () => undefined },
    env: given,
    now: () => new Date(),
    isTTY: false,
    cwd: dir,
  };
  return targetOnce({ target: 'remote' }, deps)()
    .then((target) => (target.kind === 'remote' ? target.remote.connect() : undefined))
    .catch((error: unknown) => error);
}

async function writeToken(name: string, content: string, mode = 0o600): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, content, { mode });
  await fs.chmod(file, mode);
  return file;
}

describe('config file', () => {
  it('reads a missing file as empty and writes 0600 atomically', async () => {
    expect(await loadConfig(env)).toEqual({ version: 1, profiles: {} });
    await setProfile(
      'prod',
      { baseUrl: 'https://exam.example.com', token: 'tok-1', defaults: { concurrency: 4 } },
      env,
    );
    const stat = await fs.stat(configPath(env));
    expect(stat.mode & 0o777).toBe(0o600);
    const leftovers = (await fs.readdir(path.dirname(configPath(env)))).filter((f) => f.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
    const config = await loadConfig(env);
    expect(config.defaultProfile).toBe('prod');
    expect(config.profiles.prod).toEqual({
      baseUrl: 'https://exam.example.com',
      token: 'tok-1',
      defaults: { concurrency: 4 },
    });
  });

  it('honours XDG_CONFIG_HOME when EXAMCTL_CONFIG_DIR is unset', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/u' })).toBe('/x/cfg/examctl/config.json');
    expect(configPath({ HOME: '/home/u' })).toBe('/home/u/.config/examctl/config.json');
  });

  it('lists profiles without ever showing the token value', async () => {
    await setProfile('a', { baseUrl: 'https://a.example.com', token: 'very-secret' }, env);
    await setProfile('b', { baseUrl: 'https://b.example.com', tokenFile: '~/.b-token', makeDefault: true }, env);
    await setProfile('c', { baseUrl: 'https://c.example.com' }, env);
    // Every file read as a run reads it (a missing one is not `set`: test/cli/login-config-truth.test.ts).
    const listing = await listProfiles(env, async () => undefined);
    expect(listing.map((p) => [p.name, p.token, p.isDefault])).toEqual([
      ['a', 'stored', false],
      ['b', 'set (file ~/.b-token)', true],
      ['c', 'not set', false],
    ]);
    expect(JSON.stringify(listing)).not.toContain('very-secret');
  });

  it('replaces a stored token by a token file and removes profiles', async () => {
    await setProfile('a', { baseUrl: 'https://a.example.com', token: 't' }, env);
    await setProfile('a', { tokenFile: '/tmp/t' }, env);
    expect((await loadConfig(env)).profiles.a).toEqual({ baseUrl: 'https://a.example.com', tokenFile: '/tmp/t' });
    await removeProfile('a', env);
    const config = await loadConfig(env);
    expect(config.profiles).toEqual({});
    expect(config.defaultProfile).toBeUndefined();
    await expect(removeProfile('a', env)).rejects.toBeInstanceOf(UsageError);
  });

  it('rejects a malformed config file and a bad profile name with UsageError', async () => {
    await fs.mkdir(env.EXAMCTL_CONFIG_DIR!, { recursive: true });
    await fs.writeFile(configPath(env), '{ nope');
    await expect(loadConfig(env)).rejects.toThrow(/not valid JSON/);
    await saveConfig({ version: 1, profiles: {} }, env);
    await expect(setProfile('bad name', { baseUrl: 'https://x' }, env)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('resolveRemoteTarget', () => {
  it('takes --base-url and EXAMCTL_TOKEN', async () => {
    const target = await withToken({ baseUrl: 'https://exam.example.com', env: { ...env, EXAMCTL_TOKEN: ' tok \n' } });
    expect(target).toMatchObject({ baseUrl: 'https://exam.example.com', token: 'tok', tokenSource: 'env' });
    expect(target.profile).toBeUndefined();
    expect(target.concurrency).toBeUndefined();
  });

  it('prefers --token-file over EXAMCTL_TOKEN and trims the trailing newline', async () => {
    const file = await writeToken('tok', 'from-file\n');
    const target = await withToken({
      baseUrl: 'https://x.example.com',
      tokenFile: file,
      env: { ...env, EXAMCTL_TOKEN: 'from-env' },
    });
    expect(target.token).toBe('from-file');
    expect(target.tokenSource).toBe('token-file');
    expect(target.warnings).toEqual([]);
  });

  it('warns (only) about a token file readable by others', async () => {
    const file = await writeToken('open-tok', 'abc\n', 0o644);
    const target = await withToken({ baseUrl: 'https://x.example.com', tokenFile: file, env });
    expect(target.token).toBe('abc');
    expect(target.warnings[0]).toContain(file);
    expect(target.warnings[0]).toContain('mode 644');
    expect(target.warnings[0]).not.toContain('abc');
  });

  it('reads a token file once as a regular file: a FIFO, a device or a directory is refused naming it, without blocking', async () => {
    const fifo = path.join(dir, 'fifo-token');
    execFileSync('mkfifo', [fifo]);
    // No writer ever comes: a blocking open would hang here (the test's timeout, not a pass).
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: fifo, env })).rejects.toThrow(
      `--token-file: ${fifo} is a FIFO, not a regular file: refused`,
    );
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: '/dev/zero', env })).rejects.toThrow(
      '/dev/zero is a device, not a regular file',
    );
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: dir, env })).rejects.toThrow(
      `${dir} is a directory, not a regular file`,
    );
    await setProfile('piped', { baseUrl: 'https://p.example.com', tokenFile: fifo }, env);
    await expect(resolveRemoteTarget({ profile: 'piped', env })).rejects.toThrow(
      /profile piped: tokenFile: .* is a FIFO/,
    );
  });

  it('refuses, unread, a token file larger than 64 KiB (it holds no token)', async () => {
    const big = await writeToken('big', 'a'.repeat(64 * 1024 + 1));
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: big, env })).rejects.toThrow(
      /is larger than 64 KiB: not a token file, not read/,
    );
    const justFits = await writeToken('fits', `${'a'.repeat(64 * 1024 - 1)}\n`);
    expect((await withToken({ baseUrl: 'https://x', tokenFile: justFits, env })).token).toHaveLength(64 * 1024 - 1);
  });

  it('follows a symbolic link the user made, and judges the mode of the file read', async () => {
    const target = await writeToken('real-token', 'linked\n', 0o640);
    const link = path.join(dir, 'link-token');
    await fs.symlink(target, link);
    const resolved = await withToken({ baseUrl: 'https://x', tokenFile: link, env });
    expect(resolved.token).toBe('linked');
    expect(resolved.warnings).toEqual([
      `--token-file: ${link} is readable by group or others (mode 640); consider chmod 600 ${link}`,
    ]);
  });

  it('refuses an empty or multi-line token file', async () => {
    const empty = await writeToken('empty', '\n');
    const multi = await writeToken('multi', 'a\nb\n');
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: empty, env })).rejects.toThrow(/is empty/);
    await expect(resolveRemoteTarget({ baseUrl: 'https://x', tokenFile: multi, env })).rejects.toThrow(
      /more than one line/,
    );
  });

  it('refuses a token with a character outside visible ASCII from every source, naming the source, never the token', async () => {
    const file = await writeToken('euro', 'tok€secret-part\n');
    const failures: unknown[] = [];
    const attempt = (input: Parameters<typeof resolveRemoteTarget>[0]) =>
      resolveRemoteTarget(input).then(
        () => undefined,
        (error: unknown) => failures.push(error),
      );
    await attempt({ baseUrl: 'https://x', tokenFile: file, env });
    await attempt({ baseUrl: 'https://x', env: { ...env, EXAMCTL_TOKEN: 'tok\u0001secret-part' } });
    await setProfile('odd', { baseUrl: 'https://odd.example.com', token: 'tok secret-part' }, env);
    await attempt({ profile: 'odd', env });
    expect(failures).toHaveLength(3);
    const messages = failures.map((error) => {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    });
    expect(messages[0]).toMatch(/--token-file.*(outside visible ASCII|does not hold a plain token)/);
    expect(messages[1]).toMatch(/EXAMCTL_TOKEN.*outside visible ASCII/);
    expect(messages[2]).toMatch(/outside visible ASCII/);
    for (const message of messages) expect(message).not.toContain('secret-part');
  });

  it('uses the default profile with its token file (~ expanded) and defaults', async () => {
    await writeToken('.prod-token', 'prod-secret\n');
    await setProfile(
      'prod',
      { baseUrl: 'https://prod.example.com', tokenFile: '~/.prod-token', defaults: { rate: 120 } },
      env,
    );
    const target = await withToken({ env });
    expect(target).toMatchObject({
      baseUrl: 'https://prod.example.com',
      token: 'prod-secret',
      profile: 'prod',
      tokenSource: 'profile-file',
      rate: 120,
    });
  });

  it('does not use the default profile when a base URL is given another way', async () => {
    await setProfile('prod', { baseUrl: 'https://prod.example.com', token: 'prod-secret' }, env);
    const byFlag = await resolveRemoteTarget({ baseUrl: 'https://other.example.com', env });
    expect(byFlag).toEqual({ baseUrl: 'https://other.example.com', warnings: [] });
    expect(await sendingFails({ ...env, EXAMCTL_BASE_URL: 'https://other.example.com' })).toMatchObject(NO_TOKEN);
  });

  it('selects a profile by EXAMCTL_PROFILE and names the flag for an unknown one', async () => {
    await setProfile('a', { baseUrl: 'https://a.example.com', token: 'ta' }, env);
    await setProfile('b', { baseUrl: 'https://b.example.com', token: 'tb' }, env);
    const target = await withToken({ env: { ...env, EXAMCTL_PROFILE: 'b' } });
    expect(target.token).toBe('tb');
    await expect(resolveRemoteTarget({ profile: 'zz', env })).rejects.toThrow(
      /--profile: no profile named "zz".*known: a, b/,
    );
  });

  it('resolves nothing when no base URL is configured anywhere; a command names the flags', async () => {
    expect(await resolveRemoteTarget({ env })).toBeUndefined();
    const error = await sendingFails(env);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ code: 'E2008' });
    expect((error as Error).message).toContain('--base-url');
    expect((error as Error).message).toContain('EXAMCTL_BASE_URL');
  });

  it('leaves the token out (not an error) when no source gives one', async () => {
    await setProfile('bare', { baseUrl: 'https://bare.example.com' }, env);
    const target = await resolveRemoteTarget({ env });
    expect(target).toMatchObject({ baseUrl: 'https://bare.example.com', profile: 'bare' });
    expect(target?.token).toBeUndefined();
    expect(await sendingFails(env)).toMatchObject(NO_TOKEN);
  });
});
