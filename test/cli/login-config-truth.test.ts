import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { startFaultServer, type FaultServer } from '../support/fault-server.js';
import { testDeps, withTempDir } from './helpers.js';
import { lineWith } from '../support/facts.js';

const notFound = {
  status: 400,
  body: { Content: null, Success: false, Errors: [{ Code: 1101, Message: 'Review session has not been found' }] },
};

let server: FaultServer;
beforeEach(async () => {
  server = await startFaultServer();
  server.fallback = notFound;
});
afterEach(() => server.close());

async function cli(dir: string, argv: string[], env: Record<string, string> = {}, stdin?: string) {
  const io = testDeps(dir, stdin === undefined ? {} : { stdin: Readable.from([stdin]) }, env);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}
const config = (dir: string) =>
  JSON.parse(readFileSync(join(dir, '.config', 'config.json'), 'utf8')) as {
    profiles: Record<string, { baseUrl?: string; tokenFile?: string }>;
  };

/** Trial 45, F04: EXAMCTL_BASE_URL is --base-url's variable; login never checks a token against a host it did not name. */
describe('login and EXAMCTL_BASE_URL', () => {
  it("naming another URL than the profile's (the default, or EXAMCTL_PROFILE's): exit 2, nothing sent nor stored", () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['config', 'set-profile', 'staging', '--base-url', server.url])).code).toBe(0);
      for (const env of [
        { EXAMCTL_BASE_URL: 'http://127.0.0.1:9' },
        { EXAMCTL_BASE_URL: 'http://127.0.0.1:9', EXAMCTL_PROFILE: 'staging' },
      ] as Record<string, string>[]) {
        const login = await cli(dir, ['login', '--with-token'], env, 'token-of-b\n');
        expect(login.code, login.stderr).toBe(2);
        expectCoded(login.stderr, 'E2000', 'EXAMCTL_BASE_URL', 'http://127.0.0.1:9', 'profile staging');
      }
      expect(server.requests).toHaveLength(0);
      expect(existsSync(join(dir, '.config', 'staging.token'))).toBe(false);
    }));

  it('a new profile takes it as its base URL, and the token is checked there', () =>
    withTempDir(async (dir) => {
      const login = await cli(
        dir,
        ['login', '--profile', 'b', '--with-token'],
        { EXAMCTL_BASE_URL: server.url },
        'token-of-b\n',
      );
      expect(login.code, login.stderr).toBe(0);
      expect(server.requests).toHaveLength(1);
      expect(config(dir).profiles.b).toEqual({ baseUrl: server.url, tokenFile: 'b.token' });
    }));
});

/** Trial 45, F05: a profile with no base URL (settings for the local engine) has no service to check a token against. */
it('login --profile <a profile without base URL>: exit 2 naming --base-url, nothing stored, the profile as it was', () =>
  withTempDir(async (dir) => {
    expect((await cli(dir, ['config', 'set-profile', 'admin', '--set', 'Labels=x'])).code).toBe(0);
    const before = config(dir);
    const login = await cli(dir, ['login', '--profile', 'admin', '--with-token'], {}, 'secret\n');
    expect(login.code, login.stderr).toBe(2);
    expectCoded(login.stderr, 'E2000', 'profile admin', '--base-url');
    expect(config(dir)).toEqual(before);
    expect(existsSync(join(dir, '.config', 'admin.token'))).toBe(false);
  }));

/** Trial 45, F06: stg.token and STG.token are one file on macOS and Windows; login never writes another profile's token file. */
it("login --profile STG while profile stg holds stg.token: exit 2 before a token is read, stg's token as it was", () =>
  withTempDir(async (dir) => {
    expect(
      (
        await cli(
          dir,
          ['login', '--profile', 'stg', '--base-url', 'https://staging.example.invalid', '--with-token', '--no-verify'],
          {},
          'staging-secret\n',
        )
      ).code,
    ).toBe(0);
    const login = await cli(
      dir,
      ['login', '--profile', 'STG', '--base-url', 'https://prod.example.invalid', '--with-token', '--no-verify'],
      {},
      'prod-secret\n',
    );
    expect(login.code, login.stderr).toBe(2);
    expectCoded(
      login.stderr,
      'E2000',
      join(dir, '.config', 'STG.token'),
      "profile stg's token file",
      'macOS and Windows',
    );
    expect(config(dir).profiles.STG).toBeUndefined();
    expect(readFileSync(join(dir, '.config', 'stg.token'), 'utf8')).toBe('staging-secret\n');
  }));

/** Trial 49, F03: a token file two profiles share by its very path is one file everywhere; the refusal says so and the way out. */
it('login --profile prod while profile bulk names prod.token too: exit 2 saying it is that file here, and how to give bulk its own', () =>
  withTempDir(async (dir) => {
    expect(
      (
        await cli(
          dir,
          ['login', '--profile', 'prod', '--base-url', 'https://prod.example.invalid', '--with-token', '--no-verify'],
          {},
          'old-secret\n',
        )
      ).code,
    ).toBe(0);
    const shared = join(dir, '.config', 'prod.token');
    expect(
      (
        await cli(dir, [
          'config',
          'set-profile',
          'bulk',
          '--base-url',
          'https://prod.example.invalid',
          '--token-file',
          shared,
        ])
      ).code,
    ).toBe(0);
    const login = await cli(dir, ['login', '--profile', 'prod', '--with-token', '--no-verify'], {}, 'new-secret\n');
    expect(login.code, login.stderr).toBe(2);
    expectCoded(
      login.stderr,
      'E2000',
      shared,
      "profile bulk's token file",
      'examctl config set-profile bulk --token-file <another file>',
    );
    expect(login.stderr).not.toContain('macOS');
    expect(readFileSync(shared, 'utf8')).toBe('old-secret\n');
    // The same file named `~/...`, as set-profile keeps it and runs read it.
    expect(
      (await cli(dir, ['config', 'set-profile', 'bulk', '--token-file', '~/.config/prod.token'], { HOME: dir })).code,
    ).toBe(0);
    const tilde = await cli(
      dir,
      ['login', '--profile', 'prod', '--with-token', '--no-verify'],
      { HOME: dir },
      'new-secret\n',
    );
    expect([tilde.code, readFileSync(shared, 'utf8')], tilde.stderr).toEqual([2, 'old-secret\n']);
  }));

/** Trial 45, F07: `token: set` is a file a run can read; `config use` says when EXAMCTL_PROFILE beats the default. */
describe('config list, show and use say what is true', () => {
  it('a token file gone or emptied since set-profile is listed as not usable, with why; one a run reads as set', () =>
    withTempDir(async (dir) => {
      // set-profile reads each now (test/cli/profile-settings.test.ts): they go bad after.
      for (const file of ['gone.token', 'empty.token', 'good.token'])
        writeFileSync(join(dir, file), 'tok\n', { mode: 0o600 });
      for (const [name, file] of [
        ['gone', 'gone.token'],
        ['empty', 'empty.token'],
        ['good', 'good.token'],
      ]) {
        expect(
          (
            await cli(dir, [
              'config',
              'set-profile',
              name!,
              '--base-url',
              'https://exam.example.invalid',
              '--token-file',
              file!,
            ])
          ).code,
        ).toBe(0);
      }
      rmSync(join(dir, 'gone.token'));
      writeFileSync(join(dir, 'empty.token'), '');
      const list = await cli(dir, ['config', 'list']);
      expect(list.stdout).toContain(
        `gone  https://exam.example.invalid  token: not usable: cannot read ${join(dir, 'gone.token')}: the file does not exist`,
      );
      expect(list.stdout).toContain(
        `empty  https://exam.example.invalid  token: not usable: ${join(dir, 'empty.token')} is empty`,
      );
      expect(list.stdout).toContain(`good  https://exam.example.invalid  token: set (file ${join(dir, 'good.token')})`);
      expect((await cli(dir, ['config', 'show'])).stdout).not.toContain(`token: set (file ${join(dir, 'gone.token')})`);
    }));

  // Trial 49, F02: read as a run reads it, content checked too: a run refuses `EAPI abc123` (a space), so the listing does.
  it('a token file whose content every run refuses (a space inside) is listed as not usable, with why, never the token', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'spaced.token'), 'abc123\n', { mode: 0o600 });
      writeFileSync(
        join(dir, 'u.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role\nu1,F,L,u1@x.example.test,u1,Candidate\n',
      );
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'spaced',
            '--base-url',
            'https://exam.example.invalid',
            '--token-file',
            'spaced.token',
          ])
        ).code,
      ).toBe(0);
      // Rewritten since set-profile read it.
      writeFileSync(join(dir, 'spaced.token'), 'EAPI abc123\n');
      const list = await cli(dir, ['config', 'list']);
      expect(list.stdout).toContain(
        `spaced  https://exam.example.invalid  token: not usable: ${join(dir, 'spaced.token')} holds a character outside visible ASCII (at position 5, not shown)`,
      );
      expect(list.stdout).not.toContain('abc123');
      const run = await cli(dir, ['--yes', 'user', 'sync', '--file', 'u.csv']);
      expect(run.code).toBe(2);
      expectCoded(run.stderr, 'E2000', 'position 5');
    }));

  it('config use while EXAMCTL_PROFILE names another: said on stderr', () =>
    withTempDir(async (dir) => {
      for (const name of ['prod', 'staging'])
        await cli(dir, ['config', 'set-profile', name, '--base-url', `https://${name}.example.invalid`]);
      const use = await cli(dir, ['config', 'use', 'staging'], { EXAMCTL_PROFILE: 'prod' });
      expect(use.code).toBe(0);
      expect(lineWith(use.stderr, 'default profile: staging', 'EXAMCTL_PROFILE=prod')).toBeTruthy();
      expect((await cli(dir, ['config', 'use', 'prod'], { EXAMCTL_PROFILE: 'prod' })).stderr).not.toContain(
        'still wins',
      );
    }));
});
