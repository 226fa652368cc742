/**
 * What `login` and `config` decide of a profile (context/login.ts, context/profile-commands.ts), without a run:
 * which profile and URL, the token file no other profile reads, a token refused unless plain, what each says.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  checkedLoginToken,
  loginProfile,
  loginTokenFile,
  refuseLoginPrompt,
  storedLines,
} from '../../src/context/login.js';
import { changedLines, defaultLine, profileName, removedLine } from '../../src/context/profile-commands.js';
import type { ExamctlConfig } from '../../src/context/config-file.js';
import { UsageError } from '../../src/system/errors.js';

const ENV = { XDG_CONFIG_HOME: '/cfg', HOME: '/home/x' };
const DIR = '/cfg/examctl';
const config = (profiles: ExamctlConfig['profiles'], defaultProfile?: string): ExamctlConfig =>
  ({ profiles, ...(defaultProfile === undefined ? {} : { defaultProfile }) }) as ExamctlConfig;

describe('login', () => {
  it('the profile: --profile, else EXAMCTL_PROFILE, else the default; none is exit 2', async () => {
    const cfg = config({ a: { baseUrl: 'https://a.example' }, b: { baseUrl: 'https://b.example' } }, 'a');
    expect((await loginProfile({}, cfg, ENV)).name).toBe('a');
    expect((await loginProfile({}, cfg, { ...ENV, EXAMCTL_PROFILE: 'b' })).target).toBe('https://b.example');
    expect((await loginProfile({ profile: 'b' }, cfg, ENV)).baseUrl).toBeUndefined();
    await expect(loginProfile({}, config({}), ENV)).rejects.toThrow(UsageError);
  });

  it("EXAMCTL_BASE_URL naming another URL than the profile's is refused; --base-url is taken", async () => {
    const cfg = config({ a: { baseUrl: 'https://a.example' } }, 'a');
    const env = { ...ENV, EXAMCTL_BASE_URL: 'https://other.example' };
    await expect(loginProfile({}, cfg, env)).rejects.toThrow(/other\.example/);
    const given = await loginProfile({ baseUrl: 'https://c.example/' }, cfg, env);
    expect(given).toMatchObject({ baseUrl: 'https://c.example', target: 'https://c.example' });
  });

  it('a profile without a base URL, or an unknown one without --base-url, is exit 2', async () => {
    await expect(loginProfile({ profile: 'a' }, config({ a: {} }), ENV)).rejects.toThrow(/add --base-url/);
    await expect(loginProfile({ profile: 'n' }, config({}), ENV)).rejects.toThrow(/config\.json/);
  });

  it("the token file is <name>.token, refused when another profile's file is the same (or only in letter case)", () => {
    expect(loginTokenFile(config({}), 'prod', ENV)).toEqual({ file: join(DIR, 'prod.token'), fileName: 'prod.token' });
    const same = config({ other: { tokenFile: 'prod.token' } });
    expect(() => loginTokenFile(same, 'prod', ENV)).toThrow(/other's token file too/);
    const cased = config({ other: { tokenFile: join(DIR, 'PROD.token') } });
    expect(() => loginTokenFile(cased, 'prod', ENV)).toThrow(/on macOS and Windows/);
    expect(loginTokenFile(same, 'other', ENV).fileName).toBe('other.token');
  });

  it('prompts off: refused naming the ways a script gives a token; on: nothing', () => {
    expect(() => refuseLoginPrompt('--no-input', 'prod')).toThrow(/set-profile prod --token-file/);
    expect(() => refuseLoginPrompt(undefined, 'prod')).not.toThrow();
  });

  it('a token empty or with a blank is exit 2; a plain one is kept', () => {
    expect(() => checkedLoginToken('', true)).toThrow(/on stdin/);
    expect(() => checkedLoginToken('', false)).toThrow(/entered/);
    expect(() => checkedLoginToken('a b', false)).toThrow(UsageError);
    expect(checkedLoginToken('abc', false)).toBe('abc');
  });

  it('says what changed in the profile and where the token is, unchecked with --no-verify', () => {
    const login = {
      name: 'p',
      existing: { baseUrl: 'https://old.example', tokenFile: 'old.token' },
      baseUrl: 'https://new.example',
      target: 'https://new.example',
    };
    const saved = config({ p: { baseUrl: 'https://new.example', tokenFile: 'p.token' } });
    const file = join(DIR, 'p.token');
    const lines = storedLines(login, saved, file, false, ENV, 'linux');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('https://old.example -> https://new.example');
    expect(lines[1]).toContain(`${join(DIR, 'old.token')} -> ${file}`);
    expect(lines[2]).toContain('mode 0600');
    expect(lines[2]).toContain('--no-verify');
    expect(storedLines({ ...login, existing: undefined }, saved, file, true, ENV, 'win32')).toHaveLength(1);
  });
});

describe('config', () => {
  it('a blank profile name is exit 2; a name is trimmed', () => {
    expect(() => profileName('  ', 'use')).toThrow(UsageError);
    expect(profileName(' a ', 'use')).toBe('a');
  });

  it('says a change only where there was a value before', () => {
    expect(changedLines('p', [['base URL', undefined, 'https://a.example']])).toEqual([]);
    expect(changedLines('p', [['base URL', 'https://a.example', 'https://a.example']])).toEqual([]);
    expect(changedLines('p', [['token file', '/a', '/b']])).toEqual(['profile p: token file changed, /a -> /b']);
  });

  it('a removed default leaves none, said while other profiles remain', () => {
    expect(removedLine('a', config({ b: {} }))).toContain('no default profile now');
    expect(removedLine('a', config({}))).toBe('removed profile a');
    expect(removedLine('a', config({ b: {} }, 'b'))).toBe('removed profile a');
  });

  it('EXAMCTL_PROFILE naming another profile still wins: said', () => {
    expect(defaultLine('a', { EXAMCTL_PROFILE: 'b' })).toContain('EXAMCTL_PROFILE=b');
    expect(defaultLine('a', { EXAMCTL_PROFILE: 'a' })).toBe('default profile: a');
  });
});
