/**
 * The target a run takes is the one the operator meant, or the run is refused (exit 2) saying how
 * to choose (docs/remote.md, "Where each setting comes from"): an empty flag, a CI job's empty URL
 * variable beside its token, a config key with a typo, a variable against a typed --profile.
 * Through the real CLI, in-process; every run here is a dry run or refused before sending.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { lineWith } from '../support/facts.js';

async function cli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(
    dir,
    stdin === undefined
      ? {}
      : {
          stdin: (async function* () {
            yield Buffer.from(stdin);
          })() as never,
        },
    env,
  );
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const USERS = 'ExternalId,FirstName,LastName,Email,UserName,Role\ns-1,Ann,Lee,ann@example.test,s-1,Candidate\n';
const SYNC = ['user', 'sync', '--file', 'users.csv', '--dry-run', '--json'];

/** prod (the default) and staging, each with its token file. */
async function twoProfiles(dir: string): Promise<void> {
  await writeFile(join(dir, 'users.csv'), USERS);
  for (const [name, port] of [
    ['prod', 18672],
    ['staging', 18671],
  ] as const) {
    await writeFile(join(dir, `${name}.token`), `${name}-token\n`, { mode: 0o600 });
    const made = await cli(dir, [
      'config',
      'set-profile',
      name,
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--token-file',
      join(dir, `${name}.token`),
    ]);
    expect(made.code, made.stderr).toBe(0);
  }
}

describe('an empty flag is refused, never taken as not given', () => {
  it.each(['--store', '--profile', '--base-url', '--token-file', '--runs-dir'])(
    '%s "" is exit 2 naming the flag, nothing resolved',
    (flag) =>
      withTempDir(async (dir) => {
        await twoProfiles(dir);
        const run = await cli(dir, [flag, '', ...SYNC]);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`${flag} is empty`);
        expect(run.stdout).not.toContain('targetFrom');
      }),
  );
});

describe('EXAMCTL_PROFILE set but empty', () => {
  it('is exit 2, never the default profile (a script whose $PROFILE is unset)', () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      for (const blank of ['', ' ']) {
        const run = await cli(dir, SYNC, { EXAMCTL_PROFILE: blank });
        expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('EXAMCTL_PROFILE is set but empty')]);
        expect(run.stdout).not.toContain('targetFrom');
      }
      // A typed --profile is the choice: the empty variable beside it is not read.
      const typed = await cli(dir, ['--profile', 'staging', ...SYNC], { EXAMCTL_PROFILE: '' });
      expect(typed.code, typed.stderr).toBe(0);
    }));
});

describe('a remote credential or URL beside a run that would go local by default', () => {
  it('EXAMCTL_BASE_URL empty with EXAMCTL_TOKEN (the CI job of docs/ci.md, its variable undefined) is exit 2, no demo store made', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      for (const env of [
        { EXAMCTL_BASE_URL: '', EXAMCTL_TOKEN: 'secret' },
        { EXAMCTL_TOKEN: 'secret' },
        { EXAMCTL_BASE_URL: ' ' },
      ] as Record<string, string>[]) {
        const run = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--yes'], env);
        expect(run.code, JSON.stringify(env)).toBe(2);
        expect(run.stderr).toContain('--target local');
        expect(run.stderr).not.toContain('created local store');
      }
      const file = await cli(dir, ['--token-file', 'x.token', ...SYNC]);
      expect([file.code, file.stderr]).toEqual([2, expect.stringContaining('--token-file is set but no base URL')]);
      // --target remote (what docs/ci.md's job says) with the URL missing: exit 2 too; --target local is a choice.
      expect(
        (await cli(dir, ['--target', 'remote', ...SYNC], { EXAMCTL_BASE_URL: '', EXAMCTL_TOKEN: 'secret' })).code,
      ).toBe(2);
      const local = await cli(dir, ['--target', 'local', ...SYNC], { EXAMCTL_BASE_URL: '', EXAMCTL_TOKEN: 'secret' });
      expect(local.code, local.stderr).toBe(0);
    }));
});

describe('EXAMCTL_BASE_URL set but empty beside a profile with a base URL (trial 10, F01)', () => {
  it("is exit 2 naming it, with or without --target remote: never the default profile's URL, nothing sent", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      for (const args of [
        ['--target', 'remote', '--yes', 'user', 'sync', '--file', 'users.csv', '--json'],
        SYNC,
        ['--profile', 'staging', ...SYNC],
      ]) {
        for (const env of [
          { EXAMCTL_BASE_URL: '', EXAMCTL_TOKEN: 'staging-token' },
          { EXAMCTL_BASE_URL: ' ' },
        ] as Record<string, string>[]) {
          const run = await cli(dir, args, { CI: 'true', ...env });
          expect([run.code, run.stderr], args.join(' ')).toEqual([
            2,
            expect.stringContaining('EXAMCTL_BASE_URL is set but empty'),
          ]);
          expect(run.stdout).not.toContain('targetFrom');
        }
      }
      // A typed --base-url is the URL: the empty variable beside it is not read.
      const typed = await cli(dir, ['--base-url', 'http://127.0.0.1:18671', ...SYNC], { EXAMCTL_BASE_URL: '' });
      expect(typed.code, typed.stderr).toBe(0);
    }));
});

describe('EXAMCTL_PROFILE against a variable naming another target (trial 10, F02)', () => {
  it('is exit 2 naming both, as a typed --profile is; doctor fails its target check and sends nothing', () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      const env = { EXAMCTL_PROFILE: 'staging', EXAMCTL_BASE_URL: 'http://127.0.0.1:18672' };
      const run = await cli(dir, SYNC, env);
      expect(run.code).toBe(2);
      expectCoded(
        run.stderr,
        'E2000',
        'EXAMCTL_PROFILE staging',
        'http://127.0.0.1:18671',
        'EXAMCTL_BASE_URL names http://127.0.0.1:18672',
      );
      // The URL comes from EXAMCTL_BASE_URL, not EXAMCTL_TARGET; the advice works (trial 12, F02).
      const variable = await cli(dir, SYNC, { ...env, EXAMCTL_TARGET: 'remote' });
      expectCoded(variable.stderr, 'E2000', 'EXAMCTL_BASE_URL names http://127.0.0.1:18672', '--base-url', '--store');
      expect((await cli(dir, ['--base-url', 'http://127.0.0.1:18672', ...SYNC], env)).code).toBe(0);
      const store = await cli(dir, SYNC, { EXAMCTL_PROFILE: 'staging', EXAMCTL_STORE: 'st' });
      expect([store.code, store.stderr]).toEqual([
        2,
        expect.stringContaining('but EXAMCTL_STORE names the local engine'),
      ]);
      const doctor = await cli(dir, ['doctor'], env);
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'target', 'E2000', 'EXAMCTL_PROFILE staging', 'EXAMCTL_BASE_URL');
      expect(doctor.stdout).not.toContain('reachable');
      // The profile's own URL in the variable is the profile's run.
      const same = await cli(dir, SYNC, { ...env, EXAMCTL_BASE_URL: 'http://127.0.0.1:18671/' });
      expect(same.code, same.stderr).toBe(0);
    }));
});

describe('EXAMCTL_PROFILE of settings only, EXAMCTL_BASE_URL the URL (trial 12, F02: a nightly CI job)', () => {
  it("runs on the variable's URL with the profile's settings: a profile with no base URL names no target", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      expect((await cli(dir, ['config', 'set-profile', 'nightly', '--timezone', 'Europe/London'])).code).toBe(0);
      const env = {
        EXAMCTL_PROFILE: 'nightly',
        EXAMCTL_BASE_URL: 'https://exam.example.com',
        EXAMCTL_TOKEN: 'ci-token',
      };
      for (const extra of [[], ['--target', 'remote']]) {
        const run = await cli(dir, [...extra, ...SYNC], env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(
          'target: remote https://exam.example.com (EXAMCTL_BASE_URL), token from EXAMCTL_TOKEN; profile nightly (EXAMCTL_PROFILE): timezone Europe/London',
        );
      }
      // One holding a token is still refused: its token never goes to a URL named another way.
      await writeFile(join(dir, 'keyed.token'), 'keyed-token\n', { mode: 0o600 });
      expect((await cli(dir, ['config', 'set-profile', 'keyed', '--token-file', join(dir, 'keyed.token')])).code).toBe(
        0,
      );
      const keyed = await cli(dir, SYNC, { EXAMCTL_PROFILE: 'keyed', EXAMCTL_BASE_URL: 'https://exam.example.com' });
      expect([keyed.code, keyed.stderr]).toEqual([
        2,
        expect.stringContaining('but EXAMCTL_BASE_URL names https://exam.example.com: unset it'),
      ]);
    }));
});

describe('EXAMCTL_TARGET=remote beside EXAMCTL_BASE_URL', () => {
  it('the settings line names the variable the URL came from, not EXAMCTL_TARGET (it names no URL)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const run = await cli(dir, SYNC, {
        EXAMCTL_TARGET: 'remote',
        EXAMCTL_BASE_URL: 'http://127.0.0.1:8765',
        EXAMCTL_TOKEN: 'tok',
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('target: remote http://127.0.0.1:8765 (EXAMCTL_BASE_URL)');
      expect((JSON.parse(run.stdout) as { targetFrom: string }).targetFrom).toBe('EXAMCTL_BASE_URL');
    }));
});

/** The files under `dir` (but the config file) that hold `secret`. */
async function filesHolding(dir: string, secret: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter(
    (entry) => entry.isFile() && entry.name !== 'config.json',
  );
  const held = await Promise.all(
    files.map(async (entry) =>
      (await readFile(join(entry.parentPath, entry.name), 'utf8')).includes(secret) ? [entry.name] : [],
    ),
  );
  return held.flat();
}

describe('a base URL with user info or a query (trial 13, trial31 F08)', () => {
  it('is refused before any line or file: no target line, no sync memory, no journal', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const urls = [
        'http://u:s3cret-pw@127.0.0.1:8765',
        'http://u:s3cret@pw@127.0.0.1:8765/',
        'https://127.0.0.1:9/?api_key=s3cret-key',
        'https://127.0.0.1:9/#s3cret',
      ];
      for (const url of urls) {
        for (const how of [
          { env: { EXAMCTL_BASE_URL: url }, args: [] },
          { env: {}, args: ['--base-url', url] },
        ] as { env: Record<string, string>; args: string[] }[]) {
          const run = await cli(dir, [...how.args, 'user', 'sync', '--file', 'users.csv', '--yes', '--json'], {
            ...how.env,
            EXAMCTL_TOKEN: 'tok',
            EXAMCTL_RUNS_DIR: join(dir, 'runs'),
          });
          expect(run.code).toBe(2);
          // One line, naming where the URL came from.
          expect(run.stderr).toMatch(/^examctl: E2000: (EXAMCTL_BASE_URL|--base-url): [^\n]*\n$/);
          expect(`${run.stdout}${run.stderr}`).not.toMatch(/s3cret/);
        }
      }
      const invalid = await cli(
        dir,
        ['--base-url', 'https://u:s3cret@ho st:9', 'user', 'sync', '--file', 'users.csv', '--yes', '--json'],
        { EXAMCTL_TOKEN: 'tok', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      expectCoded(invalid.stderr, 'E2000', '--base-url', '"https://ho st:9"');
      expect(invalid.stderr.split('\n')).toHaveLength(2);
      expect(`${invalid.stdout}${invalid.stderr}`).not.toMatch(/s3cret/);
      expect(await filesHolding(dir, 's3cret')).toEqual([]);
      expect(existsSync(join(dir, 'synced'))).toBe(false);
    }));

  it("a profile's: config list and show print it without them, a run with it is refused, a profile not used is said without them", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await mkdir(join(dir, '.config'), { recursive: true, mode: 0o700 });
      const profiles = {
        p: { baseUrl: 'https://u:CfgSecret123456@x.example' },
        q: { baseUrl: 'https://x.example/?api_key=CfgSecret123456' },
      };
      await writeFile(join(dir, '.config', 'config.json'), JSON.stringify({ profiles, defaultProfile: 'q' }), {
        mode: 0o600,
      });
      const list = await cli(dir, ['config', 'list']);
      expect(list.stdout).toBe('  p  https://x.example  token: not set\n* q  https://x.example  token: not set\n');
      const runs = [
        await cli(dir, ['config', 'show', '--json']),
        await cli(dir, ['--profile', 'p', ...SYNC]),
        await cli(dir, SYNC),
        await cli(dir, ['--target', 'local', ...SYNC]),
      ];
      expect(runs.map((run) => run.code)).toEqual([0, 2, 2, 0]);
      expectCoded(
        runs[1]!.stderr,
        'E2000',
        `${join(dir, '.config', 'config.json')}:1: profile p: baseUrl`,
        'EXAMCTL_TOKEN',
        '--token-file',
      );
      expect(runs[1]!.stderr.split('\n')).toHaveLength(2);
      expect(runs[3]!.stderr).toContain(
        'the default profile q is not used: --target local names another target than its own, remote https://x.example;',
      );
      expect(JSON.stringify([list, ...runs])).not.toContain('CfgSecret');
      const changed = await cli(dir, ['config', 'set-profile', 'p', '--base-url', 'https://y.example']);
      expect(lineWith(changed.stderr, 'profile p', 'https://x.example -> https://y.example')).toBeTruthy();
      expect(await filesHolding(dir, 'CfgSecret')).toEqual([]);
    }));
});

describe('a base URL with an empty query or fragment (trial45 F01): one name, so one URL', () => {
  it('is refused as a non-empty one is: flag, variable, profile, set-profile, login, local serve --public-url', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await writeFile(join(dir, 'tok'), 'tok\n', { mode: 0o600 });
      await mkdir(join(dir, '.config'), { recursive: true, mode: 0o700 });
      for (const url of ['http://127.0.0.1:8765/?', 'http://127.0.0.1:8765/#', 'HTTP://127.0.0.1:8765?']) {
        await writeFile(join(dir, '.config', 'config.json'), JSON.stringify({ profiles: { p: { baseUrl: url } } }), {
          mode: 0o600,
        });
        const runs = [
          await cli(dir, ['--base-url', url, ...SYNC], { EXAMCTL_TOKEN: 'tok' }),
          await cli(dir, SYNC, { EXAMCTL_BASE_URL: url, EXAMCTL_TOKEN: 'tok' }),
          await cli(dir, ['--profile', 'p', ...SYNC], { EXAMCTL_TOKEN: 'tok' }),
          await cli(dir, ['config', 'set-profile', 'q', '--base-url', url, '--token-file', join(dir, 'tok')]),
          await cli(dir, ['login', '--profile', 'r', '--base-url', url, '--with-token', '--no-verify'], {}, 'tok\n'),
          // A bad --faults ends the command before it serves, had --public-url passed.
          await cli(dir, ['local', 'serve', '--faults', 'bad', '--public-url', url]),
        ];
        expect(
          runs.map((run) => run.code),
          url,
        ).toEqual([2, 2, 2, 2, 2, 2]);
        for (const run of runs)
          expect(run.stderr).toMatch(
            /must not contain a query string or fragment|takes no user name, password, query or fragment/,
          );
      }
      expect(existsSync(join(dir, 'synced'))).toBe(false);
    }));
});

describe('a refused base URL names where it came from (trial 10, F09)', () => {
  it('EXAMCTL_BASE_URL or profile hr: baseUrl, not --base-url; doctor fails its target check as the run is refused', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const plain = { EXAMCTL_BASE_URL: 'http://exam.example.com', EXAMCTL_TOKEN: 't0k' };
      const run = await cli(dir, SYNC, plain);
      expect([run.code, run.stderr]).toEqual([
        2,
        expect.stringContaining('EXAMCTL_BASE_URL: refusing plain http:// to exam.example.com'),
      ]);
      const api = await cli(dir, SYNC, { EXAMCTL_BASE_URL: 'https://exam.example.com/api/v1/integrations' });
      expectCoded(api.stderr, 'E2000', 'EXAMCTL_BASE_URL', '/api/v1/integrations');
      const doctor = await cli(dir, ['doctor'], plain);
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'target', 'E2000', 'EXAMCTL_BASE_URL', 'http://');
      expect(doctor.stdout).not.toMatch(/ok\s+target/);
      expect(
        (await cli(dir, ['config', 'set-profile', 'hr', '--base-url', 'https://exam.example.com', '--default'])).code,
      ).toBe(0);
      const config = join(dir, '.config', 'config.json');
      await writeFile(config, (await readFile(config, 'utf8')).replace('https://', 'http://'));
      const profile = await cli(dir, SYNC, { EXAMCTL_TOKEN: 't0k', EXAMCTL_PROFILE: 'hr' });
      expect([profile.code, profile.stderr]).toEqual([
        2,
        expect.stringContaining('profile hr: baseUrl: refusing plain http://'),
      ]);
    }));
});

describe("a project store passed over for a profile's remote target (trial 10, F05)", () => {
  it("the settings line names the store; the run still goes to the profile's target", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const run = await cli(dir, SYNC);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).targetFrom).toBe('profile prod');
      expect(run.stderr).toContain(
        `target: remote http://127.0.0.1:18672 (profile prod), the local store ${join(dir, '.examctl-store')} passed over; profile prod`,
      );
      // A target named (--target remote, --profile) passes over nothing unsaid.
      expect((await cli(dir, ['--target', 'remote', ...SYNC])).stderr).not.toContain('passed over');
      expect((await cli(dir, ['--profile', 'prod', ...SYNC])).stderr).not.toContain('passed over');
      expect((await cli(dir, SYNC, { EXAMCTL_PROFILE: 'prod' })).stderr).toContain('passed over');
    }));
});

describe('the config file is checked strictly', () => {
  it('a key examctl does not know is exit 2 naming the file and the key; a defaultProfile naming no profile too', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await mkdir(join(dir, '.config'));
      const config = join(dir, '.config', 'config.json');
      await writeFile(
        config,
        JSON.stringify({
          version: 1,
          defaultProfile: 'prod',
          profiles: { prod: { baseURL: 'https://exam.example.org' } },
        }),
      );
      const typo = await cli(dir, SYNC);
      expect(typo.code).toBe(2);
      expectCoded(typo.stderr, 'E2000', `${config}:1: profiles.prod.baseURL:`, 'unknown key');
      await writeFile(
        config,
        JSON.stringify({
          version: 1,
          default_profile: 'prod',
          profiles: { prod: { baseUrl: 'https://exam.example.org' } },
        }),
      );
      expectCoded((await cli(dir, SYNC)).stderr, 'E2000', `${config}:1: default_profile:`, 'unknown key');
      await writeFile(
        config,
        JSON.stringify({
          version: 1,
          defaultProfile: 'prod',
          profiles: { other: { baseUrl: 'https://exam.example.org' } },
        }),
      );
      const gone = await cli(dir, SYNC);
      expect(gone.code).toBe(2);
      expectCoded(gone.stderr, 'E2000', `${config}:1: defaultProfile:`, '"prod"');
    }));

  it('as written by hand, over several lines: each refusal names the file, the line and the key', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await mkdir(join(dir, '.config'));
      const config = join(dir, '.config', 'config.json');
      const profile = (lines: readonly string[]) =>
        ['{', '  "version": 1,', '  "profiles": {', '    "prod": {', ...lines, '    }', '  }', '}'].join('\n');
      const cases: [string[], string, string][] = [
        [
          ['      "baseUrl": "https://exam.example.org",', '      "tokenFle": "prod.token"'],
          '6',
          'profiles.prod.tokenFle',
        ],
        [['      "defaults": {', '        "strct": true', '      }'], '6', 'profiles.prod.defaults.strct'],
        [['      "defaults": {', '        "concurrency": "4"', '      }'], '6', 'profiles.prod.defaults.concurrency'],
        [
          ['      "defaults": {', '        "set": {"Password": "x"}', '      }'],
          '6',
          'profiles.prod.defaults.set.Password',
        ],
      ];
      for (const [lines, line, key] of cases) {
        await writeFile(config, profile(lines));
        const refused = await cli(dir, SYNC);
        expect(refused.code, key).toBe(2);
        expectCoded(refused.stderr, 'E2000', `${config}:${line}: ${key}:`);
      }
      await writeFile(config, '{\n  "version": 1,\n  "defaultProfile": "prod",\n  "profiles": {}\n}\n');
      expectCoded((await cli(dir, SYNC)).stderr, 'E2000', `${config}:3: defaultProfile:`, '"prod"');
      // A token file a run cannot read: the config file's line that names it, then the profile and key.
      const token = JSON.stringify(join(dir, 'gone.token'));
      await writeFile(config, profile(['      "baseUrl": "https://exam.example.org",', `      "tokenFile": ${token}`]));
      const doctor = await cli(dir, ['--profile', 'prod', 'doctor']);
      expect(
        lineWith(doctor.stdout + doctor.stderr, `${config}:6: profile prod: tokenFile`, join(dir, 'gone.token')),
      ).toBeTruthy();
      // A value a run refuses (not the file's shape): the line that writes it too, then the profile and key.
      const refusedValues: [string[], string, string][] = [
        [['      "defaults": {', '        "timezone": "Mars/Phobos"', '      }'], '6', 'timezone'],
        [['      "baseUrl": "ftp://exam.example.org"'], '5', 'baseUrl'],
        [['      "defaults": {', '        "mapFile": "gone-map.json"', '      }'], '6', 'mapFile gone-map.json'],
      ];
      for (const [lines, line, key] of refusedValues) {
        await writeFile(config, profile(lines));
        const refused = await cli(dir, ['--profile', 'prod', ...SYNC]);
        expect(refused.code, key).toBe(2);
        expect(refused.stderr).toContain(`${config}:${line}: profile prod: ${key}`);
      }
    }));
});

describe('a typed --profile against a variable naming another target', () => {
  it("EXAMCTL_BASE_URL naming prod beside --profile staging is exit 2; naming staging's own URL it is staging's run", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      const clash = await cli(dir, ['--profile', 'staging', ...SYNC], { EXAMCTL_BASE_URL: 'http://127.0.0.1:18672' });
      expect(clash.code).toBe(2);
      expectCoded(
        clash.stderr,
        'E2000',
        '--profile staging',
        'http://127.0.0.1:18671',
        'EXAMCTL_BASE_URL names http://127.0.0.1:18672',
      );
      const same = await cli(dir, ['--profile', 'staging', ...SYNC], { EXAMCTL_BASE_URL: 'http://127.0.0.1:18671/' });
      expect(same.code, same.stderr).toBe(0);
      expect(same.stderr).toContain('profile staging (--profile)');
    }));

  it("the default profile's own URL given by --base-url or EXAMCTL_BASE_URL keeps the profile (its token), not set aside", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      for (const [args, env] of [
        [['--base-url', 'http://127.0.0.1:18672/'], {}],
        [[], { EXAMCTL_BASE_URL: 'http://127.0.0.1:18672' }],
      ] as const) {
        const run = await cli(dir, [...args, ...SYNC], env);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout).profile).toMatchObject({
          name: 'prod',
          used: true,
          settings: { tokenFile: join(dir, 'prod.token') },
        });
      }
    }));
});

describe('what a run took, said whole', () => {
  it("a profile's strict, and a token from EXAMCTL_TOKEN or --token-file, are named", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      expect((await cli(dir, ['config', 'set-profile', 'prod', '--strict'])).code).toBe(0);
      const run = await cli(dir, SYNC, { EXAMCTL_TOKEN: 'env-token', EXAMCTL_PROFILE: 'prod' });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).profile.settings).toEqual({ baseUrl: 'http://127.0.0.1:18672', strict: true });
      expect(run.stderr).toContain(
        'target: remote http://127.0.0.1:18672 (profile prod), token from EXAMCTL_TOKEN; profile prod (EXAMCTL_PROFILE): strict true, baseUrl http://127.0.0.1:18672; sync memory ',
      );
      const file = await cli(dir, ['--token-file', 'staging.token', '--base-url', 'http://127.0.0.1:18671', ...SYNC]);
      expect(file.stderr).toContain('target: remote http://127.0.0.1:18671 (--base-url), token from --token-file;');
    }));

  it('login repointing an existing profile says old -> new on stderr', () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      const login = await cli(
        dir,
        ['login', '--profile', 'prod', '--base-url', 'http://127.0.0.1:18671', '--with-token', '--no-verify'],
        {},
        'new-token\n',
      );
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(
        'profile prod: base URL changed, http://127.0.0.1:18672 -> http://127.0.0.1:18671\n',
      );
      // Trial 6, f13: the token file the profile named, set aside for login's own, is said too.
      const stored = /token stored in (\S+) /.exec(login.stderr)?.[1];
      expect(stored).not.toBe(join(dir, 'prod.token'));
      expect(login.stderr).toContain(`profile prod: token file changed, ${join(dir, 'prod.token')} -> ${stored}\n`);
      // Again: the profile already names login's file, nothing changed to say.
      const again = await cli(dir, ['login', '--profile', 'prod', '--with-token', '--no-verify'], {}, 'newer-token\n');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('changed');
    }));

  it("set-profile repointing a profile says old -> new as login does, and drops the old URL's token unless given again", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      const moved = await cli(dir, ['config', 'set-profile', 'prod', '--base-url', 'http://127.0.0.1:18673']);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr).toContain(
        'profile prod: base URL changed, http://127.0.0.1:18672 -> http://127.0.0.1:18673\n',
      );
      expect(moved.stderr).toContain(
        'profile prod: its token was for http://127.0.0.1:18672, not kept: run examctl login --profile prod',
      );
      const run = await cli(dir, ['--yes', 'user', 'sync', '--file', 'users.csv']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('no token');
      const file = join(dir, 'staging.token');
      // The same URL spelt otherwise (trial 12, F04): no change said, the token and the spelling kept, by login too.
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'ext',
            '--base-url',
            'https://exam.example.com',
            '--token-file',
            file,
          ])
        ).code,
      ).toBe(0);
      for (const [name, url, same] of [
        ['staging', 'http://127.0.0.1:18671', 'HTTP://127.0.0.1:18671/'],
        ['ext', 'https://exam.example.com', 'https://EXAM.example.com:443'],
      ]) {
        const kept = await cli(dir, [
          'config',
          'set-profile',
          name!,
          '--base-url',
          same!,
          '--concurrency',
          '4',
          '--json',
        ]);
        expect([kept.stderr, JSON.parse(kept.stdout).profile]).toEqual([
          expect.not.stringContaining('changed'),
          expect.objectContaining({ baseUrl: url, token: `set (file ${file})` }),
        ]);
      }
      const login = await cli(
        dir,
        ['login', '--profile', 'staging', '--base-url', 'HTTP://127.0.0.1:18671', '--with-token', '--no-verify'],
        {},
        'new-token\n',
      );
      expect(login.stderr).not.toContain('base URL changed');
      const given = await cli(dir, [
        'config',
        'set-profile',
        'staging',
        '--base-url',
        'http://127.0.0.1:18674',
        '--token-file',
        file,
        '--json',
      ]);
      expect(given.stderr).not.toContain('not kept');
      expect(JSON.parse(given.stdout).profile.token).toBe(`set (file ${file})`);
    }));

  it("a report fed back with --only-failed goes where today's settings point, and the line names it (docs/runs.md)", () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      await writeFile(
        join(dir, 'rep.csv'),
        USERS.replace('\n', ',status,error_codes,error_messages\n').replace('Candidate\n', 'Candidate,failed,,\n'),
      );
      for (const [args, url] of [
        [[], '18672 (profile prod)'],
        [['--profile', 'staging'], '18671 (profile staging)'],
      ] as const) {
        const retry = await cli(dir, [...args, 'user', 'sync', '--file', 'rep.csv', '--only-failed', '--dry-run']);
        expect(retry.code, retry.stderr).toBe(0);
        expect(retry.stderr).toContain(`target: remote http://127.0.0.1:${url}`);
      }
    }));
});

describe('a config directory named but not there (EXAMCTL_CONFIG_DIR with a typo)', () => {
  const send = ['--yes', 'user', 'sync', '--file', 'users.csv'];

  it('a run that could send, local by default, is exit 2 naming the variable and the path, also a dry run; nothing is made', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const typo = join(dir, 'exmactl');
      for (const args of [send, SYNC]) {
        const run = await cli(dir, args, { EXAMCTL_CONFIG_DIR: typo });
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `EXAMCTL_CONFIG_DIR names ${typo}`, '--store', '--target local');
      }
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
      expect(existsSync(typo)).toBe(false);
    }));

  it('doctor fails its target check (exit 3) as the run would be refused: `doctor && user sync` stops at doctor', () =>
    withTempDir(async (dir) => {
      const typo = join(dir, 'exmactl');
      const text = await cli(dir, ['doctor'], { EXAMCTL_CONFIG_DIR: typo });
      expect(text.code, text.stderr).toBe(3);
      failedCheck(text.stdout, 'target', 'E2000', 'EXAMCTL_CONFIG_DIR', typo);
      const json = await cli(dir, ['doctor', '--json'], { EXAMCTL_CONFIG_DIR: typo });
      expect(JSON.parse(json.stdout)).toMatchObject({
        healthy: false,
        checks: [{ name: 'target', status: 'fail' }, { name: 'permissions' }],
      });
      expect((await cli(dir, ['--target', 'local', 'doctor'], { EXAMCTL_CONFIG_DIR: typo })).code).toBe(0);
    }));

  it('--target local, --store or EXAMCTL_STORE runs; a command that only reads goes on, with a warning', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const typo = { EXAMCTL_CONFIG_DIR: join(dir, 'exmactl') };
      for (const [args, env] of [
        [['--target', 'local'], {}],
        [['--store', '.examctl-store'], {}],
        [[], { EXAMCTL_STORE: '.examctl-store' }],
      ] as [string[], Record<string, string>][]) {
        const run = await cli(dir, [...args, ...send], { ...typo, ...env });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).not.toContain('EXAMCTL_CONFIG_DIR');
      }
      expect(
        (
          await cli(
            dir,
            ['--target', 'local', 'schedule', 'push', '--file', resolve('fixtures/sittings.csv'), '--upsert'],
            typo,
          )
        ).code,
      ).toBe(0);
      const links = await cli(dir, ['schedule', 'links', 'S-MATH1-DEC', '--output', 'csv'], typo);
      expect(links.code, links.stderr).toBe(0);
      expect(links.stdout).toContain('stu-2001');
      expect(lineWith(links.stderr, 'EXAMCTL_CONFIG_DIR', typo.EXAMCTL_CONFIG_DIR)).toMatch(/^warning: /);
    }));

  it('login and config set-profile make the folder; then the run takes its profile, and says so', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const [remote, local] = [
        { EXAMCTL_CONFIG_DIR: join(dir, 'a', 'examctl') },
        { EXAMCTL_CONFIG_DIR: join(dir, 'b') },
      ];
      const login = await cli(
        dir,
        ['login', '--profile', 'prod', '--base-url', 'http://127.0.0.1:18672', '--with-token', '--no-verify'],
        remote,
        'tok\n',
      );
      expect(login.code, login.stderr).toBe(0);
      expect(existsSync(join(remote.EXAMCTL_CONFIG_DIR, 'config.json'))).toBe(true);
      const dry = await cli(dir, SYNC, remote);
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout).targetFrom).toBe('profile prod');
      expect((await cli(dir, ['config', 'set-profile', 'admin', '--timezone', 'Europe/London'], local)).code).toBe(0);
      const run = await cli(dir, send, local);
      expect(run.code, run.stderr).toBe(0);
      expect(
        lineWith(run.stderr, 'target: local store ', '(profile admin)', 'profile admin (the default profile)'),
      ).toBeTruthy();
    }));
});

describe('under CI=true a remote target is named (issue 81, item 7: a job whose secrets were not injected)', () => {
  it('a base URL only the default profile gives is exit 2 naming the profile and the unset or empty variables; named, it runs', () =>
    withTempDir(async (dir) => {
      await twoProfiles(dir);
      for (const [args, env] of [
        [SYNC, {}],
        [['--target', 'remote', ...SYNC], { EXAMCTL_TOKEN: '' }],
        [['--target', 'remote', '--yes', 'user', 'sync', '--file', 'users.csv'], { EXAMCTL_TOKEN: ' ' }],
      ] as [string[], Record<string, string>][]) {
        const run = await cli(dir, args, { CI: 'true', ...env });
        expect(run.code, run.stderr).toBe(2);
        const token = env.EXAMCTL_TOKEN === undefined ? 'unset' : 'empty';
        expectCoded(
          run.stderr,
          'E2000',
          'default profile prod',
          'http://127.0.0.1:18672',
          'EXAMCTL_BASE_URL unset',
          `EXAMCTL_TOKEN ${token}`,
          'EXAMCTL_PROFILE unset',
        );
        expect(run.stdout).not.toContain('targetFrom');
      }
      const doctor = await cli(dir, ['doctor'], { CI: 'true' });
      expect(doctor.code).toBe(3);
      failedCheck(doctor.stdout, 'target', 'E2000', 'CI=true', 'default profile prod');
      // Named by a flag or a variable, or not under CI: the run goes on.
      for (const [args, env] of [
        [['--profile', 'prod', ...SYNC], { CI: 'true' }],
        [SYNC, { CI: 'true', EXAMCTL_PROFILE: 'prod' }],
        [SYNC, { CI: 'true', EXAMCTL_BASE_URL: 'http://127.0.0.1:18672' }],
        [['--base-url', 'http://127.0.0.1:18671', ...SYNC], { CI: 'true' }],
        [SYNC, { CI: 'false' }],
        [SYNC, {}],
      ] as [string[], Record<string, string>][]) {
        const run = await cli(dir, args, env);
        expect(run.code, `${args.join(' ')} ${JSON.stringify(env)}: ${run.stderr}`).toBe(0);
      }
    }));

  it('with no config at all the local engine is still the default under CI=true (the README main job)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const run = await cli(dir, ['--yes', 'user', 'sync', '--file', 'users.csv'], { CI: 'true' });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('created local store');
    }));
});
