/**
 * A flag typed is never overridden, and a token never goes to a host nothing named (docs/remote.md,
 * "Where each setting comes from"; trial 19, f01, f07). Through the real CLI, in-process; dry runs
 * and doctor refused before its probe: nothing is sent (loopback addresses, no service).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { failedCheck, expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function cli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, {}, env);
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const PROD = 'https://127.0.0.1:18682';
const STAGING = 'https://127.0.0.1:18681';
const SYNC = ['user', 'sync', '--file', 'users.csv', '--dry-run'];

/** users.csv, t.token, and the default profile prod (its base URL and token file) unless `profile` is false. */
async function setUp(dir: string, profile = true): Promise<void> {
  await writeFile(
    join(dir, 'users.csv'),
    'ExternalId,FirstName,LastName,Email,UserName,Role\ns-1,Ann,Lee,ann@example.test,s-1,Candidate\n',
  );
  await writeFile(join(dir, 't.token'), 'tok\n', { mode: 0o600 });
  if (!profile) return;
  const made = await cli(dir, [
    'config',
    'set-profile',
    'prod',
    '--base-url',
    PROD,
    '--token-file',
    join(dir, 't.token'),
    '--default',
  ]);
  expect(made.code, made.stderr).toBe(0);
}

describe('two typed flags naming two targets (f01)', () => {
  it.each([
    [
      false,
      ['--store', 'st', '--base-url', STAGING, '--token-file', 't.token'],
      '--base-url and --store name two targets',
    ],
    [true, ['--target', 'remote', '--store', 'st'], '--target remote and --store name two targets'],
    [
      false,
      ['--target', 'local', '--base-url', STAGING, '--token-file', 't.token'],
      '--target local and --base-url name two targets',
    ],
  ])('profile %s, %j: exit 2, no store made', (profile, flags, said) =>
    withTempDir(async (dir) => {
      await setUp(dir, profile);
      const run = await cli(dir, [...flags, ...SYNC]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(said)]);
      expect(existsSync(join(dir, 'st'))).toBe(false);
    }),
  );

  it('doctor fails its target check', () =>
    withTempDir(async (dir) => {
      await setUp(dir, false);
      const doctor = await cli(dir, ['doctor', '--store', 'st', '--base-url', STAGING]);
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'target', 'E2000', '--base-url', '--store');
    }));

  it('a variable a flag beats is said unused; the variable that named another target is the one named', () =>
    withTempDir(async (dir) => {
      await setUp(dir);
      const store = await cli(dir, ['--base-url', STAGING, '--token-file', 't.token', ...SYNC], {
        EXAMCTL_STORE: 'st',
      });
      expect(store.code, store.stderr).toBe(0);
      expect(store.stderr).toContain(
        `target: remote ${STAGING} (--base-url), token from --token-file, EXAMCTL_STORE not used;`,
      );
      const target = await cli(dir, ['--store', 'st', ...SYNC], { EXAMCTL_TARGET: 'remote' });
      expect(
        lineWith(target.stderr, 'target: local store ', '(--store)', 'EXAMCTL_TARGET=remote not used'),
      ).toBeTruthy();
      // A job's EXAMCTL_PROFILE beaten by a typed --profile (found by a trial): said, as the other variables are.
      const staging = await cli(dir, ['config', 'set-profile', 'stg', '--base-url', STAGING]);
      expect(staging.code, staging.stderr).toBe(0);
      const profile = await cli(dir, ['--profile', 'prod', ...SYNC], { EXAMCTL_PROFILE: 'stg' });
      expect(profile.code, profile.stderr).toBe(0);
      expect(
        lineWith(profile.stderr, `target: remote ${PROD} (profile prod)`, 'EXAMCTL_PROFILE not used', '(--profile)'),
      ).toBeTruthy();
      const same = await cli(dir, ['--profile', 'prod', ...SYNC], { EXAMCTL_PROFILE: 'prod' });
      expect(same.stderr).not.toContain('EXAMCTL_PROFILE not used');
      const url = await cli(dir, ['--target', 'remote', ...SYNC], { EXAMCTL_BASE_URL: STAGING });
      expect(url.stderr).toContain(
        'the default profile prod is not used: EXAMCTL_BASE_URL names another target than its own',
      );
    }));
});

describe("a token given to a run never goes to the default profile's URL nothing named (f07)", () => {
  it.each([
    [['--target', 'remote'], { EXAMCTL_TOKEN: 'ci-token' }, 'EXAMCTL_TOKEN'],
    [[], { EXAMCTL_TOKEN: 'ci-token' }, 'EXAMCTL_TOKEN'],
    [['--token-file', 't.token'], {}, '--token-file'],
  ] as [string[], Record<string, string>, string][])('%j %j: exit 2', (flags, env, source) =>
    withTempDir(async (dir) => {
      await setUp(dir);
      const run = await cli(dir, [...flags, ...SYNC], env);
      expect(run.code).toBe(2);
      expectCoded(
        run.stderr,
        'E2000',
        `token from ${source}`,
        'profile prod',
        'EXAMCTL_BASE_URL',
        '--base-url',
        '--profile prod',
      );
    }),
  );

  it('named by EXAMCTL_PROFILE, --profile, EXAMCTL_BASE_URL or --base-url, it goes', () =>
    withTempDir(async (dir) => {
      await setUp(dir);
      for (const [flags, env] of [
        [[], { EXAMCTL_PROFILE: 'prod' }],
        [['--profile', 'prod'], {}],
        [[], { EXAMCTL_BASE_URL: PROD }],
        [['--base-url', PROD], {}],
      ] as [string[], Record<string, string>][]) {
        const run = await cli(dir, [...flags, ...SYNC], { EXAMCTL_TOKEN: 'ci-token', ...env });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(`target: remote ${PROD} (`);
        expect(run.stderr).toContain('token from EXAMCTL_TOKEN');
      }
      // The profile's own token: as before.
      expect((await cli(dir, SYNC)).code).toBe(0);
    }));
});

describe('a default profile with a token but no base URL', () => {
  it('a run that could send is refused, dry run too; --target local runs', () =>
    withTempDir(async (dir) => {
      await setUp(dir, false);
      expect(
        (await cli(dir, ['config', 'set-profile', 'p', '--token-file', join(dir, 't.token'), '--default'])).code,
      ).toBe(0);
      const run = await cli(dir, SYNC);
      expect([run.code, run.stderr]).toEqual([
        2,
        expect.stringContaining('the token of profile p is set but no base URL is given'),
      ]);
      // Each way the refusal names runs (trial20 f03): the profile's URL typed with it, or set on it.
      expect(run.stderr).toContain(
        'give one (examctl config set-profile p --base-url <url>, or --profile p --base-url <url>), or --target local',
      );
      const typed = await cli(dir, ['--profile', 'p', '--base-url', PROD, ...SYNC]);
      expect([typed.code, typed.stderr]).toEqual([0, expect.stringContaining(`target: remote ${PROD} (`)]);
      expect((await cli(dir, ['config', 'set-profile', 'p', '--base-url', PROD])).code).toBe(0);
      const set = await cli(dir, SYNC);
      expect([set.code, set.stderr]).toEqual([0, expect.stringContaining(`target: remote ${PROD} (profile p)`)]);
      const local = await cli(dir, ['--target', 'local', ...SYNC]);
      expect(local.code, local.stderr).toBe(0);
    }));
});
