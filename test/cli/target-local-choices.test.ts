/**
 * What names the target is never overruled by a remote's token lying about (docs/remote.md,
 * "Where each setting comes from"): a profile without a base URL names the local engine; a
 * command that only reads the local store is not refused over a token; one URL written two ways
 * is one target. Through the real CLI, in-process; nothing is sent.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
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

const USERS = 'ExternalId,FirstName,LastName,Email,UserName,Role\ns-1,Ann,Lee,ann@example.test,s-1,Candidate\n';
const SYNC = ['user', 'sync', '--file', 'users.csv', '--dry-run'];

describe('a token exported beside a target chosen local', () => {
  it('a profile without a base URL (--profile, EXAMCTL_PROFILE, the default one) runs locally, the token said unused', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      expect(
        (await cli(dir, ['config', 'set-profile', 'admin', '--timezone', 'Europe/London', '--default'])).code,
      ).toBe(0);
      for (const [args, env] of [
        [[], {}],
        [['--profile', 'admin'], {}],
        [[], { EXAMCTL_PROFILE: 'admin' }],
      ] as [string[], Record<string, string>][]) {
        const run = await cli(dir, [...args, ...SYNC], { EXAMCTL_TOKEN: 'shell-token', ...env });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(
          /target: local store .* \(profile admin\), EXAMCTL_TOKEN not used; profile admin \(.*\): timezone Europe\/London/,
        );
      }
    }));

  it('schedule links, which reads only the local store, is not refused over EXAMCTL_TOKEN or an empty EXAMCTL_BASE_URL; a sending run still is', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['schedule', 'push', '--file', resolve('fixtures/sittings.csv'), '--upsert'])).code).toBe(
        0,
      );
      for (const env of [{ EXAMCTL_TOKEN: 'shell-token' }, { EXAMCTL_BASE_URL: '' }] as Record<string, string>[]) {
        const links = await cli(dir, ['schedule', 'links', 'S-MATH1-DEC', '--output', 'csv'], env);
        expect(links.code, links.stderr).toBe(0);
        expect(links.stdout).toContain('stu-2001');
      }
      await writeFile(join(dir, 'users.csv'), USERS);
      expect((await cli(dir, SYNC, { EXAMCTL_TOKEN: 'shell-token' })).stderr).toContain(
        'EXAMCTL_TOKEN is set but no base URL is given',
      );
    }));
});

describe('a store path from the environment', () => {
  it('is said on the settings line, with or without --target local; a typed --store wins and goes unsaid', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const env = { EXAMCTL_STORE: join(dir, 'ci-store') };
      for (const args of [[], ['--target', 'local'], ['--target', 'local', '--json']]) {
        const run = await cli(dir, [...args, ...SYNC], env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(`target: local store ${join(dir, 'ci-store')} (EXAMCTL_STORE)`);
        if (args.includes('--json')) expect(JSON.parse(run.stdout)).toMatchObject({ targetFrom: 'EXAMCTL_STORE' });
      }
      const typed = await cli(dir, ['--store', 'st', ...SYNC], env);
      expect(typed.code, typed.stderr).toBe(0);
      expect(typed.stderr).not.toContain('target:');
    }));
});

describe('one URL however written is one target', () => {
  it.each(['https://Exam.Example.com', 'https://exam.example.com:443', 'HTTPS://exam.example.com/'])(
    "%s is the profile's own: --profile against EXAMCTL_BASE_URL runs, the default profile is used",
    (url) =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 'users.csv'), USERS);
        await writeFile(join(dir, 'p.token'), 'tok\n', { mode: 0o600 });
        expect(
          (
            await cli(dir, [
              'config',
              'set-profile',
              'prod',
              '--base-url',
              'https://exam.example.com',
              '--token-file',
              join(dir, 'p.token'),
              '--default',
            ])
          ).code,
        ).toBe(0);
        const typed = await cli(dir, ['--profile', 'prod', ...SYNC], { EXAMCTL_BASE_URL: url });
        expect(typed.code, typed.stderr).toBe(0);
        const byDefault = await cli(dir, ['--base-url', url, ...SYNC]);
        expect(byDefault.stderr).toContain('; profile prod (the default profile): tokenFile');
      }),
  );
});
