/**
 * What `login` and `config` decide of a profile (context/login.ts, context/profile-commands.ts): which profile and
 * URL, the token file no other profile reads, a token refused unless plain, what each says.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { changedLines } from '../../src/context/profile-commands.js';
import type { ExamctlConfig } from '../../src/context/config-file.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

const config = (profiles: ExamctlConfig['profiles'], defaultProfile?: string): ExamctlConfig =>
  ({ profiles, ...(defaultProfile === undefined ? {} : { defaultProfile }) }) as ExamctlConfig;

/** `examctl login ...` with `config.json` as given and the token piped in (never checked: --no-verify). */
async function login(dir: string, given: ExamctlConfig, argv: string[], token = 'abc', env = {}) {
  const io = testDeps(dir, { stdin: Readable.from([token]), platform: 'linux' }, env);
  writeFileSync(join(dir, '.config', 'config.json'), JSON.stringify(given));
  const code = await runCli(['login', '--with-token', '--no-verify', ...argv], io.deps);
  return { code, stderr: io.stderr.text };
}

describe('login', () => {
  it('the profile: --profile, else EXAMCTL_PROFILE, else the default; none is exit 2', () =>
    withTempDir(async (dir) => {
      const cfg = config({ a: { baseUrl: 'https://a.example' }, b: { baseUrl: 'https://b.example' } }, 'a');
      expect((await login(dir, cfg, [])).stderr).toContain('for profile a');
      expect((await login(dir, cfg, [], 'abc', { EXAMCTL_PROFILE: 'b' })).stderr).toContain('for profile b');
      expect((await login(dir, cfg, ['--profile', 'b'])).stderr).toContain('for profile b');
      const none = await login(dir, config({}), []);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('--profile <name>');
    }));

  it('a profile without a base URL, or an unknown one without --base-url, is exit 2', () =>
    withTempDir(async (dir) => {
      const bare = await login(dir, config({ a: {} }), ['--profile', 'a']);
      expect([bare.code, bare.stderr.includes('add --base-url')]).toEqual([2, true]);
      const unknown = await login(dir, config({}), ['--profile', 'n']);
      expect([unknown.code, unknown.stderr.includes('config.json')]).toEqual([2, true]);
    }));

  it("the token file is <name>.token, refused when another profile's file is the same", () =>
    withTempDir(async (dir) => {
      const same = config({ other: { baseUrl: 'https://o.example', tokenFile: 'prod.token' } });
      const refused = await login(dir, same, ['--profile', 'prod', '--base-url', 'https://p.example']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("other's token file too");
      const own = await login(dir, same, ['--profile', 'other']);
      expect(own.stderr).toContain(join(dir, '.config', 'other.token'));
    }));

  it('prompts off: refused naming the ways a script gives a token', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      writeFileSync(
        join(dir, '.config', 'config.json'),
        JSON.stringify(config({ prod: { baseUrl: 'https://p.example' } })),
      );
      expect(await runCli(['login', '--profile', 'prod', '--no-input'], io.deps)).toBe(2);
      expect(io.stderr.text).toContain('set-profile prod --token-file');
    }));

  it('a token empty or with a blank is exit 2', () =>
    withTempDir(async (dir) => {
      const cfg = config({ p: { baseUrl: 'https://p.example' } }, 'p');
      const empty = await login(dir, cfg, [], '\n');
      expect([empty.code, empty.stderr.includes('on stdin')]).toEqual([2, true]);
      expect((await login(dir, cfg, [], 'a b')).code).toBe(2);
    }));

  it('says what changed in the profile and where the token is, unchecked with --no-verify', () =>
    withTempDir(async (dir) => {
      const cfg = config({ p: { baseUrl: 'https://old.example', tokenFile: 'old.token' } });
      const file = join(dir, '.config', 'p.token');
      const { code, stderr } = await login(dir, cfg, ['--profile', 'p', '--base-url', 'https://new.example']);
      expect(code).toBe(0);
      expect(stderr).toContain('https://old.example -> https://new.example');
      expect(stderr).toContain(`${join(dir, '.config', 'old.token')} -> ${file}`);
      expect(stderr).toContain('mode 0600');
      expect(stderr).toContain('--no-verify');
    }));
});

describe('config', () => {
  const cli = async (dir: string, argv: string[], env = {}) => {
    const io = testDeps(dir, {}, env);
    const code = await runCli(['config', ...argv], io.deps);
    return { code, stderr: io.stderr.text };
  };

  it('a blank profile name is exit 2; a name is trimmed', () =>
    withTempDir(async (dir) => {
      const blank = await cli(dir, ['use', '  ']);
      expect([blank.code, blank.stderr.includes('a profile name is required')]).toEqual([2, true]);
      expect((await cli(dir, ['set-profile', ' a '])).code).toBe(0);
      expect((await cli(dir, ['use', ' a '])).stderr).toBe('default profile: a\n');
    }));

  it('says a change only where there was a value before', () => {
    expect(changedLines('p', [['base URL', undefined, 'https://a.example']])).toEqual([]);
    expect(changedLines('p', [['base URL', 'https://a.example', 'https://a.example']])).toEqual([]);
    expect(changedLines('p', [['token file', '/a', '/b']])).toEqual(['profile p: token file changed, /a -> /b']);
  });

  it('a removed default leaves none, said while other profiles remain', () =>
    withTempDir(async (dir) => {
      await cli(dir, ['set-profile', 'a', '--default']);
      await cli(dir, ['set-profile', 'b']);
      expect((await cli(dir, ['remove', 'a'])).stderr).toContain('no default profile now');
      expect((await cli(dir, ['remove', 'b'])).stderr).toBe('removed profile b\n');
    }));

  it('EXAMCTL_PROFILE naming another profile still wins: said', () =>
    withTempDir(async (dir) => {
      await cli(dir, ['set-profile', 'a']);
      expect((await cli(dir, ['use', 'a'], { EXAMCTL_PROFILE: 'b' })).stderr).toContain('EXAMCTL_PROFILE=b');
      expect((await cli(dir, ['use', 'a'], { EXAMCTL_PROFILE: 'a' })).stderr).toBe('default profile: a\n');
    }));
});
