/**
 * Explicit beats implicit (docs/remote.md, "Where each setting comes from"): a flag naming a target
 * is never overridden by a profile; a default profile applies to its own target only; a run names
 * its target and the profile's settings it took, on stderr and in its report's header. Through
 * the real CLI, in-process.
 */
import { chmod, lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { resolveSettings } from '../../src/context/settings.js';

async function cli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, {}, env);
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

interface Report {
  target: { kind: string; store?: string; baseUrl?: string };
  targetFrom: string;
  profile?: { name: string; via: string; used: boolean; why?: string; settings: Record<string, unknown> };
  plan?: { toCreate: number; toUpdate: number; unchanged: number };
}

const STUDENTS = 'ExternalId,FirstName,LastName,Email,UserName,Role\ns-1,Ann,Lee,ann@example.test,s-1,Candidate\n';
const NO_ROLE = 'ExternalId,FirstName,LastName,Email,UserName\ns-1,Ann,Lee,ann@example.test,s-1\n';

/** A local store holding student s-1 (a Candidate), and the HR profile of the issue: a base URL, Role=Author, the default. */
async function issueSetUp(dir: string): Promise<string> {
  const store = join(dir, 'store');
  await writeFile(join(dir, 'students.csv'), STUDENTS);
  await writeFile(join(dir, 'no-role.csv'), NO_ROLE);
  expect((await cli(dir, ['--target', 'local', '--store', store, 'user', 'sync', '--file', 'students.csv'])).code).toBe(
    0,
  );
  const hr = await cli(dir, [
    'config',
    'set-profile',
    'hr',
    '--base-url',
    'https://exam.example.org',
    '--set',
    'Role=Author',
    '--timezone',
    'Europe/London',
    '--default',
  ]);
  expect(hr.code, hr.stderr).toBe(0);
  return store;
}

describe('a flag naming a target is never overridden by a profile', () => {
  it('the issue: a default profile with --set Role=Author, then user sync --target local on a file without Role: the student stays a Candidate, and stderr and the JSON header say why', () =>
    withTempDir(async (dir) => {
      const store = await issueSetUp(dir);
      const run = await cli(dir, [
        '--target',
        'local',
        '--store',
        store,
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--dry-run',
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as Report;
      // Without the profile's Role=Author nothing of s-1 changes.
      expect(report.plan).toMatchObject({ toUpdate: 0, unchanged: 1 });
      expect(report.targetFrom).toBe('--target local');
      expect(report.profile).toMatchObject({ name: 'hr', via: 'the default profile', used: false, settings: {} });
      expect(run.stderr).toContain(
        `target: local store ${store} (--target local); the default profile hr is not used: --target local names another target than its own, remote https://exam.example.org; name it with --profile hr to take its settings; sync memory `,
      );
      // The same run naming the profile takes it: Role=Author changes s-1, and the line lists what it gave.
      const named = await cli(dir, [
        '--profile',
        'hr',
        '--target',
        'local',
        '--store',
        store,
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--dry-run',
        '--json',
      ]);
      expect(named.code, named.stderr).toBe(0);
      const namedReport = JSON.parse(named.stdout) as Report;
      expect(namedReport.plan).toMatchObject({ toUpdate: 1, unchanged: 0 });
      expect(namedReport.profile).toEqual({
        name: 'hr',
        via: '--profile',
        used: true,
        settings: { timezone: 'Europe/London', set: { Role: 'Author' } },
      });
      expect(named.stderr).toContain(
        `target: local store ${store} (--target local); profile hr (--profile): set Role=Author, timezone Europe/London; sync memory `,
      );
      // A flag of the run beats the profile's setting: --set Role=Candidate leaves it out of what the profile gave.
      const flagged = await cli(dir, [
        '--profile',
        'hr',
        '--target',
        'local',
        '--store',
        store,
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--set',
        'Role=Candidate',
        '--timezone',
        'UTC',
        '--dry-run',
        '--json',
      ]);
      expect((JSON.parse(flagged.stdout) as Report).profile?.settings).toEqual({});
      expect(lineWith(flagged.stderr, 'profile hr (--profile): ', 'none of its settings')).toBeTruthy();
    }));

  it('--store beats a default profile with a base URL: the run is local, said so; without --store the default profile makes it remote', () =>
    withTempDir(async (dir) => {
      await issueSetUp(dir);
      const st1 = await cli(dir, [
        '--store',
        'st1',
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--dry-run',
        '--json',
        '--report',
        'st1.xml',
      ]);
      expect(st1.code, st1.stderr).toBe(0);
      const report = JSON.parse(st1.stdout) as Report;
      expect(report.target).toEqual({ kind: 'local', store: join(dir, 'st1') });
      expect(report.targetFrom).toBe('--store');
      expect(report.profile).toMatchObject({ name: 'hr', used: false });
      expect(st1.stderr).toContain(
        `target: local store ${join(dir, 'st1')} (--store); the default profile hr is not used`,
      );
      // The JUnit report's properties say the same as the JSON header.
      const junit = await readFile(join(dir, 'st1.xml'), 'utf8');
      expect(junit).toContain('<property name="targetFrom" value="--store"/>');
      expect(junit).toContain(
        '<property name="profile" value="{&quot;name&quot;:&quot;hr&quot;,&quot;via&quot;:&quot;the default profile&quot;,&quot;used&quot;:false,',
      );
      // EXAMCTL_STORE names the local target too (environment > profile).
      const fromEnv = await cli(dir, ['user', 'sync', '--file', 'no-role.csv', '--dry-run', '--json'], {
        EXAMCTL_STORE: join(dir, 'st2'),
      });
      expect((JSON.parse(fromEnv.stdout) as Report).targetFrom).toBe('EXAMCTL_STORE');
      const remote = await cli(dir, ['user', 'sync', '--file', 'no-role.csv', '--dry-run', '--json']);
      const remoteReport = JSON.parse(remote.stdout) as Report;
      expect(remoteReport.target).toEqual({ kind: 'remote', baseUrl: 'https://exam.example.org' });
      expect(remoteReport.targetFrom).toBe('profile hr');
      // The base URL it gave is named too (never "none of its settings").
      expect(remoteReport.profile).toEqual({
        name: 'hr',
        via: 'the default profile',
        used: true,
        settings: { baseUrl: 'https://exam.example.org', timezone: 'Europe/London', set: { Role: 'Author' } },
      });
      expect(remote.stderr).toContain(
        'target: remote https://exam.example.org (profile hr); profile hr (the default profile): set Role=Author, timezone Europe/London, baseUrl https://exam.example.org; sync memory ',
      );
    }));

  it('trial 6, f09: a token from EXAMCTL_TOKEN or --token-file is named by its source in the JSON header and the JUnit properties, as on stderr; never the token', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'no-role.csv'), NO_ROLE);
      await writeFile(join(dir, 'tok'), 'tok-secret-2\n', { mode: 0o600 });
      const remote = [
        '--base-url',
        'https://exam.example.org',
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--dry-run',
        '--json',
        '--report',
        'r.xml',
      ];
      for (const [args, env, from] of [
        [[], { EXAMCTL_TOKEN: 'tok-secret-1' }, 'EXAMCTL_TOKEN'],
        [['--token-file', 'tok'], {}, '--token-file'],
      ] as const) {
        const run = await cli(dir, [...args, ...remote], env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(`(--base-url), token from ${from}`);
        expect((JSON.parse(run.stdout) as Report & { tokenFrom?: string }).tokenFrom).toBe(from);
        const junit = await readFile(join(dir, 'r.xml'), 'utf8');
        expect(junit).toContain(`<property name="tokenFrom" value="${from}"/>`);
        expect(run.stdout + run.stderr + junit).not.toMatch(/tok-secret/);
      }
      // A local run has no token: no tokenFrom.
      const local = await cli(dir, [
        '--target',
        'local',
        '--store',
        'st',
        'user',
        'sync',
        '--file',
        'no-role.csv',
        '--dry-run',
        '--json',
      ]);
      expect(local.stdout).not.toContain('tokenFrom');
    }));

  it("a default profile's output settings do not shape a local review-session show; named with --profile they do", () =>
    withTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect((await cli(dir, ['local', 'init', '--store', store])).code).toBe(0);
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'london',
            '--base-url',
            'https://exam.example.org',
            '--timezone',
            'Europe/London',
            '--delimiter',
            ';',
            '--default',
          ])
        ).code,
      ).toBe(0);
      const local = await cli(dir, ['--store', store, 'review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv']);
      expect(local.code, local.stderr).toBe(0);
      expect(local.stdout).toContain('2026-10-13T18:21:00.000Z');
      expect(local.stdout).not.toContain(';');
      const named = await cli(dir, [
        '--profile',
        'london',
        '--store',
        store,
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
      ]);
      expect(named.stdout.split('\r\n')[0]).toContain(';LastSatDate;');
      expect(named.stdout).not.toContain('18:21:00.000Z');
      expect(named.stderr).toContain(
        `target: local store ${store} (--store); profile london (--profile): timezone Europe/London, delimiter ;\n`,
      );
    }));
});

describe('a profile without a base URL: settings for the local engine', () => {
  it('holds input settings and --ignore-unknown-columns; as the default profile it applies to local runs, said on stderr', () =>
    withTempDir(async (dir) => {
      const created = await cli(dir, [
        'config',
        'set-profile',
        'admin',
        '--set',
        'Role=Candidate',
        '--ignore-unknown-columns',
      ]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toContain('(the default profile)');
      expect(created.stderr).not.toContain('no token yet');
      expect((await cli(dir, ['config', 'list'])).stdout).toContain(
        '* admin  local engine (no base URL)  (set Role=Candidate, ignoreUnknownColumns true)',
      );
      await writeFile(
        join(dir, 'extra.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Shoe size\ns-9,Bo,Li,bo@example.test,s-9,42\n',
      );
      const run = await cli(dir, ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'extra.csv', '--json']);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as Report;
      expect(report.profile).toEqual({
        name: 'admin',
        via: 'the default profile',
        used: true,
        settings: { ignoreUnknownColumns: true, set: { Role: 'Candidate' } },
      });
      expect(run.stderr).toContain(
        `target: local store ${join(dir, 'store')} (--store); profile admin (the default profile): set Role=Candidate, ignoreUnknownColumns true; sync memory `,
      );
      // A base URL named another way is not its target: not used, and said.
      const remote = await cli(dir, ['user', 'sync', '--file', 'extra.csv', '--dry-run'], {
        EXAMCTL_BASE_URL: 'https://exam.example.org',
      });
      expect(remote.code).toBe(2);
      expect(remote.stderr).toContain(
        'the default profile admin is not used: EXAMCTL_BASE_URL names another target than its own, the local engine (it has no base URL)',
      );
    }));
});

describe('profiles: trust, links, names', () => {
  it('a map file named by a profile that others can write is refused, exit 2, as the config file is', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'map.json'), JSON.stringify({ 'Student ID': 'ExternalId' }));
      expect((await cli(dir, ['config', 'set-profile', 'sis', '--map-file', 'map.json'])).code).toBe(0);
      await writeFile(
        join(dir, 'sis.csv'),
        'Student ID,FirstName,LastName,Email,UserName,Role\ns-1,Ann,Lee,ann@example.test,s-1,Candidate\n',
      );
      expect(
        (await cli(dir, ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'sis.csv', '--dry-run'])).code,
      ).toBe(0);
      await chmod(join(dir, 'map.json'), 0o666);
      const refused = await cli(dir, ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'sis.csv', '--dry-run']);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2400', `profile sis: mapFile ${join(dir, 'map.json')}: `);
      // Refused where it is kept too, not at 2 am.
      const kept = await cli(dir, ['config', 'set-profile', 'sis', '--map-file', 'map.json']);
      expect(kept.code).toBe(2);
      expectCoded(kept.stderr, 'E2400', '--map-file map.json: ');
    }));

  it('a config.json that is a link (a dotfiles repository) is written through: the link stays, the linked file gets the change', () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, 'dotfiles'), { mode: 0o700 });
      await mkdir(join(dir, '.config'), { mode: 0o700 });
      await writeFile(join(dir, 'dotfiles', 'examctl.json'), JSON.stringify({ version: 1, profiles: {} }), {
        mode: 0o600,
      });
      await symlink(join('..', 'dotfiles', 'examctl.json'), join(dir, '.config', 'config.json'));
      const set = await cli(dir, ['config', 'set-profile', 'prod', '--base-url', 'https://exam.example.org']);
      expect(set.code, set.stderr).toBe(0);
      expect((await lstat(join(dir, '.config', 'config.json'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(dir, '.config', 'config.json'))).toBe(join('..', 'dotfiles', 'examctl.json'));
      expect(JSON.parse(await readFile(join(dir, 'dotfiles', 'examctl.json'), 'utf8'))).toMatchObject({
        profiles: { prod: { baseUrl: 'https://exam.example.org' } },
      });
    }));

  it('--profile toString (or constructor, __proto__, hasOwnProperty) is a profile name no profile has', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['config', 'set-profile', 'prod', '--base-url', 'https://exam.example.org'])).code).toBe(
        0,
      );
      await writeFile(join(dir, 'none.csv'), STUDENTS);
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
        const run = await cli(dir, ['--profile', name, 'user', 'sync', '--file', 'none.csv', '--dry-run']);
        expect(run.code, name).toBe(2);
        expectCoded(run.stderr, 'E2000', '--profile', `"${name}"`, join(dir, '.config', 'config.json'), 'known: prod');
        expect(run.stderr).not.toContain('no remote base URL');
        const use = await cli(dir, ['config', 'use', name]);
        expect(use.code, name).toBe(2);
      }
    }));
});

describe('the one precedence: flag > environment > named profile > default profile > built-in (resolveSettings)', () => {
  it('each row of the table, target and a setting, with its source', () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, '.config'), { mode: 0o700 });
      const config = {
        version: 1,
        defaultProfile: 'dflt',
        profiles: {
          dflt: { baseUrl: 'https://default.example.org', defaults: { timezone: 'Europe/Paris' } },
          named: { baseUrl: 'https://named.example.org', defaults: { timezone: 'Asia/Tokyo' } },
        },
      };
      await writeFile(join(dir, '.config', 'config.json'), JSON.stringify(config), { mode: 0o600 });
      const env = { EXAMCTL_CONFIG_DIR: join(dir, '.config') };
      const row = async (flags: Record<string, string>, extra: Record<string, string> = {}) => {
        const settings = await resolveSettings(flags, { env: { ...env, ...extra } });
        return [
          settings.target.value,
          settings.target.from,
          settings.baseUrl?.from,
          settings.profile?.name,
          settings.values.timezone?.from,
          settings.setAside?.name,
        ];
      };
      expect(await row({})).toEqual(['remote', 'profile dflt', 'profile dflt', 'dflt', 'profile dflt', undefined]);
      expect(await row({ profile: 'named' })).toEqual([
        'remote',
        'profile named',
        'profile named',
        'named',
        'profile named',
        undefined,
      ]);
      expect(await row({}, { EXAMCTL_PROFILE: 'named' })).toEqual([
        'remote',
        'profile named',
        'profile named',
        'named',
        'profile named',
        undefined,
      ]);
      expect(await row({}, { EXAMCTL_STORE: 'st' })).toEqual([
        'local',
        'EXAMCTL_STORE',
        undefined,
        undefined,
        undefined,
        'dflt',
      ]);
      expect(await row({ store: 'st' }, { EXAMCTL_BASE_URL: 'https://env.example.org' })).toEqual([
        'local',
        '--store',
        undefined,
        undefined,
        undefined,
        'dflt',
      ]);
      expect(await row({ timezone: 'UTC' }, { EXAMCTL_BASE_URL: 'https://env.example.org' })).toEqual([
        'remote',
        'EXAMCTL_BASE_URL',
        'EXAMCTL_BASE_URL',
        undefined,
        '--timezone',
        'dflt',
      ]);
      expect(await row({ target: 'remote' })).toEqual([
        'remote',
        '--target remote',
        'profile dflt',
        'dflt',
        'profile dflt',
        undefined,
      ]);
      expect(await row({ profile: 'named', target: 'local' })).toEqual([
        'local',
        '--target local',
        undefined,
        'named',
        'profile named',
        undefined,
      ]);
      expect(await row({ baseUrl: 'https://flag.example.org' }, { EXAMCTL_TARGET: 'local' })).toEqual([
        'remote',
        '--base-url',
        '--base-url',
        undefined,
        undefined,
        'dflt',
      ]);
      await writeFile(join(dir, '.config', 'config.json'), JSON.stringify({ version: 1, profiles: {} }), {
        mode: 0o600,
      });
      expect(await row({})).toEqual(['local', 'built-in', undefined, undefined, undefined, undefined]);
    }));
});
