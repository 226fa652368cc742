import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { runCli } from '../../src/cli/run-cli.js';
import { BUILD_ID } from '../../src/version.js';
import { resolveRemoteTarget } from '../../src/context/remote-settings.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { startFaultServer, type FaultServer, type ScriptedReply } from '../support/fault-server.js';
import { lineWith } from '../support/facts.js';

const TOKEN = 'doctor-sekret-42';
const notFound = {
  status: 400,
  body: { Content: null, Success: false, Errors: [{ Code: 1101, Message: 'Review session has not been found' }] },
};

let server: FaultServer;
beforeEach(async () => {
  server = await startFaultServer();
});
afterEach(async () => {
  await server.close();
});

/** Doctor compares the server's Date with our clock: tests give it the real one. */
async function cli(
  dir: string,
  argv: string[],
  env: Record<string, string> = {},
  overrides: Partial<CommandDeps> = {},
) {
  const io = testDeps(dir, { now: () => new Date(), ...overrides }, env);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

type Doctor = {
  healthy: boolean;
  build?: string;
  target: string;
  token?: { set: boolean; source?: string };
  clockSkewSeconds?: number;
  checks: Array<{ name: string; status: string; detail: string }>;
};
const check = (doc: Doctor, name: string) => doc.checks.find((c) => c.name === name);

describe('examctl doctor', () => {
  it('remote, 1101 for the probe: reachable and authorised, exit 0; the token is never shown', async () => {
    await withTempDir(async (dir) => {
      server.fallback = notFound;
      const { code, stdout, stderr } = await cli(dir, ['--base-url', server.url, 'doctor', '--json'], {
        EXAMCTL_TOKEN: TOKEN,
      });
      expect(code).toBe(0);
      const doc = JSON.parse(stdout) as Doctor;
      expect(doc.healthy).toBe(true);
      expect(doc.target).toBe('remote');
      expect(doc.token).toEqual({ set: true, source: 'EXAMCTL_TOKEN' });
      expect(check(doc, 'authorised')?.status).toBe('ok');
      expect(check(doc, 'clock')?.status).toBe('ok');
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.method).toBe('GET');
      expect(server.requests[0]!.url).toMatch(
        /^\/api\/v1\/integrations\/external\/review-sessions\/examctl-doctor-[0-9a-f]+$/,
      );
      expect(server.requests[0]!.headers.authorization).toBe(`EAPI ${TOKEN}`);
      expect(stdout + stderr).not.toContain(TOKEN);
    });
  });

  it("the target check names where the URL came from, as the settings line: a typed --base-url is not the profile's (trial45 F03)", async () => {
    await withTempDir(async (dir) => {
      server.fallback = notFound;
      await writeFile(join(dir, 'prod.token'), `${TOKEN}\n`, { mode: 0o600 });
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'prod',
            '--base-url',
            'https://prod.example.invalid',
            '--token-file',
            join(dir, 'prod.token'),
          ])
        ).code,
      ).toBe(0);
      const typed = await cli(dir, ['--profile', 'prod', '--base-url', server.url, 'doctor', '--json']);
      expect(
        lineWith(typed.stderr, `target: remote ${server.url} (--base-url)`, 'profile prod (--profile)'),
      ).toBeTruthy();
      expect(check(JSON.parse(typed.stdout) as Doctor, 'target')?.detail).toBe(
        `remote API at ${server.url} (--base-url)`,
      );
      const own = await cli(dir, ['--profile', 'prod', 'doctor', '--json'], { EXAMCTL_REQUEST_TIMEOUT_MS: '1' });
      expect(check(JSON.parse(own.stdout) as Doctor, 'target')?.detail).toBe(
        'remote API at https://prod.example.invalid (profile prod)',
      );
    });
  });

  it('remote, 200 for the probe: the authorisation line says what the server answered, not 1101', async () => {
    await withTempDir(async (dir) => {
      server.fallback = { status: 200, body: { Content: { Results: [] }, Success: true, Errors: null } };
      const { code, stdout } = await cli(dir, ['--base-url', server.url, 'doctor'], { EXAMCTL_TOKEN: TOKEN });
      expect(code).toBe(0);
      expect(lineWith(stdout, 'authorised', '200', 'Success')).toMatch(/^ok\s+authorised\s/);
      expect(stdout).not.toContain('1101');
    });
  });

  it('remote, a redirect: not healthy, naming the Location and the base URL to set; not followed', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 308,
        headers: { location: 'https://127.0.0.1/api/v1/integrations/external/review-sessions/x' },
      };
      const { code, stdout } = await cli(dir, ['--base-url', server.url, 'doctor'], { EXAMCTL_TOKEN: TOKEN });
      expect(code).toBe(3);
      failedCheck(
        stdout,
        'authorised',
        'E3002',
        '308',
        'https://127.0.0.1/api/v1/integrations/external/review-sessions/x',
      );
      expect(stdout).toContain('set --base-url to https://127.0.0.1');
      expect(server.requests).toHaveLength(1);
      // The advice names the setting the URL came from (trial 10, F09).
      expect((await cli(dir, ['doctor'], { EXAMCTL_TOKEN: TOKEN, EXAMCTL_BASE_URL: server.url })).stdout).toContain(
        'set EXAMCTL_BASE_URL to https://127.0.0.1',
      );
      expect((await cli(dir, ['config', 'set-profile', 'hr', '--base-url', server.url, '--default'])).code).toBe(0);
      expect((await cli(dir, ['doctor'], { EXAMCTL_TOKEN: TOKEN, EXAMCTL_PROFILE: 'hr' })).stdout).toContain(
        'set profile hr: baseUrl to https://127.0.0.1',
      );
    });
  });

  it('remote, 403: the token is refused, exit 3', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 403,
        body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'no' }] },
      };
      const { code, stdout } = await cli(dir, ['--base-url', server.url, 'doctor'], { EXAMCTL_TOKEN: TOKEN });
      expect(code).toBe(3);
      failedCheck(stdout, 'authorised', 'E3010', '(403)');
      expect(stdout).toContain('not healthy');
      expect(stdout).not.toContain(TOKEN);
    });
  });

  it('remote, nothing listening: unreachable, exit 3', async () => {
    await withTempDir(async (dir) => {
      const url = server.url;
      await server.close();
      server = await startFaultServer(); // for afterEach
      const { code, stdout } = await cli(dir, ['--base-url', url, 'doctor', '--json'], { EXAMCTL_TOKEN: TOKEN });
      expect(code).toBe(3);
      const doc = JSON.parse(stdout) as Doctor;
      expect(check(doc, 'reachable')?.status).toBe('fail');
      expect(check(doc, 'reachable')?.detail).toContain('ECONNREFUSED');
    });
  });

  it('remote, no token: says so and is not healthy; the server clock an hour ahead is a warning', async () => {
    await withTempDir(async (dir) => {
      server.fallback = () => ({ ...notFound, headers: { date: new Date(Date.now() + 3_600_000).toUTCString() } });
      const { code, stdout } = await cli(dir, ['--base-url', server.url, 'doctor', '--json']);
      expect(code).toBe(3);
      const doc = JSON.parse(stdout) as Doctor;
      expect(doc.token).toEqual({ set: false });
      expect(check(doc, 'token')?.status).toBe('fail');
      expect(check(doc, 'clock')?.status).toBe('warn');
      expect(doc.clockSkewSeconds).toBeGreaterThan(3500);
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
    });
  });

  it('remote, a page that is not the API (200 HTML): not healthy', async () => {
    await withTempDir(async (dir) => {
      server.fallback = { status: 200, body: '<html>login</html>' };
      const { code, stdout } = await cli(dir, ['--base-url', server.url, 'doctor'], { EXAMCTL_TOKEN: TOKEN });
      expect(code).toBe(3);
      expect(stdout).toContain("the integration API's base URL?");
    });
  });

  it('plain http to a non-loopback host is refused without sending', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, ['--base-url', 'http://exam.example.test', 'doctor'], {
        EXAMCTL_TOKEN: TOKEN,
      });
      expect(code).toBe(3);
      expect(stdout).toContain('refusing plain http://');
    });
  });

  it('local: no store yet is healthy and creates nothing; an existing store answers 1101', async () => {
    await withTempDir(async (dir) => {
      const store = join(dir, 'store');
      const before = await cli(dir, ['--store', store, 'doctor', '--json']);
      expect(before.code).toBe(0);
      expect((JSON.parse(before.stdout) as Doctor).target).toBe('local');
      await expect(stat(store)).rejects.toThrow();
      expect((JSON.parse(before.stdout) as Doctor).build).toBe(BUILD_ID);
      expect((await cli(dir, ['--store', store, 'local', 'init'])).code).toBe(0);
      const after = await cli(dir, ['--store', store, 'doctor']);
      expect(after.code).toBe(0);
      expect(lineWith(after.stdout, 'store', '1101')).toMatch(/^ok\s+store\s/);
    });
  });
});

describe('examctl doctor: no store yet where none can be created', () => {
  const expectFail = async (dir: string, store: string, ...facts: string[]) => {
    const { code, stdout } = await cli(dir, ['--store', store, 'doctor']);
    failedCheck(stdout, 'store', 'E3000', ...facts);
    expect(code).toBe(3);
  };

  // /sys refuses a new directory to root too.
  it.skipIf(process.platform !== 'linux')(
    'under /sys: FAIL store naming the place, exit 3, as the push would fail',
    () => withTempDir((dir) => expectFail(dir, '/sys/examctl-doctor-test/store', 'in /sys: ')),
  );

  // Root writes into a read-only directory: another user only.
  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)(
    'in a read-only directory: FAIL store, exit 3, permission denied',
    () =>
      withTempDir(async (dir) => {
        await mkdir(join(dir, 'ro'), { mode: 0o555 });
        await expectFail(dir, join(dir, 'ro', 'exams', 'store'), `in ${join(dir, 'ro')}: `, 'EACCES');
      }),
  );
});

describe('examctl doctor: runs and sync directories a run cannot make (trial24 f04)', () => {
  // /sys refuses a new directory to root too; another user gets a read-only directory.
  const root = process.getuid?.() === 0;
  it.skipIf(process.platform !== 'linux')(
    'FAIL permissions naming each directory and the way out, exit 3, as every send would fail',
    () =>
      withTempDir(async (dir) => {
        if (!root) await mkdir(join(dir, 'ro'), { mode: 0o555 });
        const home = root ? '/sys/examctl-doctor-test' : join(dir, 'ro', 'home');
        const { code, stdout } = await cli(dir, ['--store', join(dir, 'store'), 'doctor'], {
          HOME: home,
          XDG_STATE_HOME: '',
        });
        failedCheck(stdout, 'permissions', 'E3050', 'runs directory', 'sync directory', 'HOME');
        // The flags first, as user sync's help says them: doctor takes them too.
        expect(stdout).toMatch(/--runs-dir and --sync-dir \(env EXAMCTL_RUNS_DIR, EXAMCTL_SYNC_DIR\)/);
        expect(code).toBe(3);
        const given = await cli(dir, ['--store', join(dir, 'store'), 'doctor'], {
          HOME: home,
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        });
        expect(given.stdout).toMatch(/ok\s+permissions/);
        expect(given.code).toBe(0);
        const flags = await cli(
          dir,
          ['--store', join(dir, 'store'), '--runs-dir', join(dir, 'r'), 'doctor', '--sync-dir', join(dir, 's')],
          { HOME: home, XDG_STATE_HOME: '' },
        );
        expect([flags.stdout.match(/\S+\s+permissions/)?.[0], flags.code]).toEqual([expect.stringMatching(/^ok/), 0]);
      }),
  );
});

describe('examctl doctor: a store the run cannot write (trial17 f05)', () => {
  // Root writes a read-only file: an immutable one (chattr +i) refuses root too.
  const root = process.getuid?.() === 0;
  const readOnly = (path: string, on: boolean) =>
    root ? execFileSync('chattr', [on ? '+i' : '-i', path]) : chmodSync(path, on ? 0o444 : 0o600);

  it.skipIf(process.platform === 'win32')(
    'its journal read-only: FAIL store naming the journal, exit 3, as the night would fail',
    () =>
      withTempDir(async (dir) => {
        const store = join(dir, 'store');
        expect((await cli(dir, ['--store', store, 'local', 'init'])).code).toBe(0);
        const journal = join(store, 'journal-1.ndjson');
        readOnly(journal, true);
        try {
          const { code, stdout } = await cli(dir, ['--store', store, 'doctor']);
          expect(lineWith(stdout, `${journal}: `)).toMatch(/^FAIL +store /);
          expect(code).toBe(3);
        } finally {
          readOnly(journal, false);
        }
      }),
  );
});

describe('examctl config', () => {
  it('set-profile, list, use, show, remove; the file is 0600 and no listing shows a token', async () => {
    await withTempDir(async (dir) => {
      const tokenFile = join(dir, 'prod.token');
      await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'prod',
            '--base-url',
            'https://exam.example.com/',
            '--token-file',
            'prod.token',
            '--concurrency',
            '4',
            '--rate',
            '600',
          ])
        ).code,
      ).toBe(0);
      expect(
        (await cli(dir, ['config', 'set-profile', 'staging', '--base-url', 'https://staging.example.com'])).code,
      ).toBe(0);
      const configFile = join(dir, '.config', 'config.json');
      expect((await stat(configFile)).mode & 0o777).toBe(0o600);
      const config = JSON.parse(await readFile(configFile, 'utf8')) as {
        defaultProfile: string;
        profiles: Record<string, { baseUrl: string; tokenFile?: string; defaults?: unknown }>;
      };
      expect(config.defaultProfile).toBe('prod');
      // A relative --token-file is stored absolute: the profile is used from any directory.
      expect(config.profiles.prod).toEqual({
        baseUrl: 'https://exam.example.com',
        tokenFile: tokenFile,
        defaults: { concurrency: 4, rate: 600 },
      });

      const list = await cli(dir, ['config', 'list']);
      expect(list.stdout).toMatch(
        /^\* prod {2}https:\/\/exam\.example\.com {2}token: set \(file .*prod\.token\) {2}\(concurrency 4, rate 600\)$/m,
      );
      expect(lineWith(list.stdout, 'staging', 'token: not set')).toMatch(/^ {2}staging /);

      expect((await cli(dir, ['config', 'use', 'staging'])).code).toBe(0);
      const shown = JSON.parse((await cli(dir, ['config', 'show', '--json'])).stdout) as {
        defaultProfile: string;
        profiles: unknown[];
      };
      expect(shown.defaultProfile).toBe('staging');
      expect(shown.profiles).toHaveLength(2);

      const removed = await cli(dir, ['config', 'remove', 'staging']);
      expect(removed.code).toBe(0);
      expect(removed.stderr).toContain('no default profile now');
      expect((await cli(dir, ['config', 'use', 'nope'])).code).toBe(2);
      for (const out of [list.stdout, list.stderr, JSON.stringify(shown)]) expect(out).not.toContain(TOKEN);
    });
  });

  it('refuses a base URL every run would refuse', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, ['config', 'set-profile', 'lan', '--base-url', 'http://10.0.0.5']);
      expect(code).toBe(2);
      expect(stderr).toContain('refusing plain http://');
      // --allow-insecure-http lets it through this once and is not kept: said, so no run is a surprise.
      const lan = await cli(dir, [
        'config',
        'set-profile',
        'lan',
        '--base-url',
        'http://10.0.0.5',
        '--allow-insecure-http',
      ]);
      expect(lan.code, lan.stderr).toBe(0);
      expect(lan.stderr).toMatch(
        /^created profile lan .*\n(.*\n)?--allow-insecure-http is not kept: give it on each run\n$/,
      );
      expect(await readFile(join(dir, '.config', 'config.json'), 'utf8')).not.toMatch(/insecure/i);
      const local = await cli(dir, [
        'config',
        'set-profile',
        'lo',
        '--base-url',
        'http://127.0.0.1:8080',
        '--allow-insecure-http',
      ]);
      expect(local.stderr).not.toContain('not kept');
    });
  });
});

describe('examctl login', () => {
  it('without a terminal: a usage error naming --token-file and EXAMCTL_TOKEN', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', 'https://exam.example.com']);
      const { code, stderr } = await cli(dir, ['login', '--profile', 'prod']);
      expect(code).toBe(2);
      // Trial 8, f05: never `--token-file` alone, which login refuses: the profile's token file.
      expect(
        lineWith(stderr, 'examctl config set-profile prod --token-file <path>', 'examctl login --with-token'),
      ).toBeTruthy();
      expect(stderr.split('--token-file').length).toBe(stderr.split('set-profile prod --token-file').length);
      expect(stderr).toContain('EXAMCTL_TOKEN');
      // What turned the prompt off: no terminal here; --no-input on one.
      expectCoded(stderr, 'E2000', '(prompts are off: no terminal)');
      const typed = await cli(dir, ['login', '--profile', 'prod', '--no-input'], {}, { isTTY: true });
      expectCoded(typed.stderr, 'E2000', '(prompts are off: --no-input)');
    });
  });

  it('on a terminal: stores the typed token 0600 beside the config and the profile uses it', async () => {
    await withTempDir(async (dir) => {
      // The token is checked against the service before it is kept: a loopback one that accepts it.
      server.fallback = notFound;
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', server.url]);
      const io = testDeps(dir, { isTTY: true });
      const asked: string[] = [];
      const deps: CommandDeps = {
        ...io.deps,
        askSecret: async (message) => {
          asked.push(message);
          return `  ${TOKEN}  `;
        },
      };
      expect(await runCli(['login'], deps)).toBe(0);
      expect(asked).toEqual([`EAPI token for ${server.url}:`]);
      expect(server.requests[0]?.headers.authorization).toBe(`EAPI ${TOKEN}`);
      const tokenFile = join(dir, '.config', 'prod.token');
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      expect(await readFile(tokenFile, 'utf8')).toBe(`${TOKEN}\n`);
      expect(io.stderr.text + io.stdout.text).not.toContain(TOKEN);
      const target = await resolveRemoteTarget({ env: io.deps.env, cwd: dir });
      expect(target?.token).toBe(TOKEN);
      expect(target?.tokenSource).toBe('profile-file');
      expect(target?.warnings).toEqual([]);
      const list = await cli(dir, ['config', 'list']);
      expect(list.stdout).toContain('token: set (file prod.token)');
    });
  });
});

describe('examctl login verifies the token before storing it', () => {
  const tokenFile = (dir: string) => join(dir, '.config', 'prod.token');
  /** The waits between attempts, taken at once and recorded: no test waits for a backoff. */
  let waits: number[] = [];
  beforeEach(() => {
    waits = [];
  });
  const typing = (io: ReturnType<typeof testDeps>, token = TOKEN): CommandDeps => ({
    ...io.deps,
    askSecret: async () => token,
    retrySleep: async (ms) => void waits.push(ms),
  });

  it.each<[string, ScriptedReply[]]>([
    ['two 503s', [{ status: 503 }, { status: 503 }]],
    ['a 429 with Retry-After: 2', [{ status: 429, headers: { 'retry-after': '2' } }]],
    ['a 502 and a dropped connection', [{ status: 502 }, { destroy: true }]],
  ])('%s, then the answer: retried like every request, the token stored (exit 0)', async (_what, first) => {
    await withTempDir(async (dir) => {
      server.script(...first);
      server.fallback = notFound;
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', server.url]);
      const io = testDeps(dir, { isTTY: true });
      expect(await runCli(['login'], typing(io)), io.stderr.text).toBe(0);
      expect(server.requests).toHaveLength(first.length + 1);
      expect(waits).toHaveLength(first.length);
      if (first[0]?.headers?.['retry-after'] !== undefined) expect(waits).toEqual([2000]);
      expect(io.stderr.text).toContain('token accepted');
      expect(await readFile(tokenFile(dir), 'utf8')).toBe(`${TOKEN}\n`);
    });
  });

  it('503 at every attempt: gives up after the attempts every request has, exit 3, nothing stored', async () => {
    await withTempDir(async (dir) => {
      server.fallback = { status: 503 };
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', server.url]);
      const io = testDeps(dir, { isTTY: true });
      expect(await runCli(['login'], typing(io))).toBe(3);
      expect(server.requests).toHaveLength(5);
      expectCoded(io.stderr.text, 'E3000', '5 attempts', '503');
      expect(io.stderr.text).toContain('--no-verify');
      await expect(stat(tokenFile(dir))).rejects.toThrow();
    });
  });

  it('refused by the service: exit 3, nothing stored', async () => {
    await withTempDir(async (dir) => {
      server.fallback = {
        status: 403,
        body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'Forbidden' }] },
      };
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', server.url]);
      const io = testDeps(dir, { isTTY: true });
      expect(await runCli(['login'], typing(io))).toBe(3);
      expectCoded(io.stderr.text, 'E3010', '403');
      await expect(stat(tokenFile(dir))).rejects.toThrow();
      expect(io.stderr.text).not.toContain(TOKEN);
    });
  });

  it('unreachable: exit 3 naming --no-verify; with --no-verify the token is stored unchecked', async () => {
    await withTempDir(async (dir) => {
      const url = server.url;
      await server.close();
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', url]);
      const io = testDeps(dir, { isTTY: true });
      expect(await runCli(['login'], typing(io))).toBe(3);
      expect(io.stderr.text).toContain('could not reach');
      expect(io.stderr.text).toContain('--no-verify');
      await expect(stat(tokenFile(dir))).rejects.toThrow();
      const unchecked = testDeps(dir, { isTTY: true });
      expect(await runCli(['login', '--no-verify'], typing(unchecked))).toBe(0);
      expect(await readFile(tokenFile(dir), 'utf8')).toBe(`${TOKEN}\n`);
      expect(unchecked.stderr.text).toContain('not checked');
      server = await startFaultServer();
    });
  });

  it('--with-token reads the token from stdin, without a terminal', async () => {
    await withTempDir(async (dir) => {
      server.fallback = notFound;
      await cli(dir, ['config', 'set-profile', 'prod', '--base-url', server.url]);
      const io = testDeps(dir, { isTTY: false, stdin: Readable.from([`${TOKEN}\n`]) });
      expect(await runCli(['login', '--with-token'], io.deps)).toBe(0);
      expect(await readFile(tokenFile(dir), 'utf8')).toBe(`${TOKEN}\n`);
      expect(io.stderr.text).toContain('token accepted');
      expect(io.stderr.text + io.stdout.text).not.toContain(TOKEN);
    });
  });
});

describe('examctl doctor: what other commands refuse is diagnosed', () => {
  it('--target remote without a base URL, or an unknown profile: a failed target check, exit 3', async () => {
    await withTempDir(async (dir) => {
      const noUrl = await cli(dir, ['--target', 'remote', 'doctor', '--json']);
      expect(noUrl.code).toBe(3);
      const doc = JSON.parse(noUrl.stdout) as Doctor;
      expect(doc.healthy).toBe(false);
      expect(check(doc, 'target')).toMatchObject({
        code: 'E2008',
        detail: expect.stringContaining('no remote base URL'),
      });
      const unknown = await cli(dir, ['--profile', 'nope', 'doctor']);
      expect(unknown.code).toBe(3);
      expect(unknown.stdout).toContain('no profile named "nope"');
      // Trial 6, f14: the document names no target it did not find; --target's is the one asked for.
      expect(doc.target).toBe('remote');
      const unknownJson = await cli(dir, ['--profile', 'nope', 'doctor', '--json']);
      expect(unknownJson.code).toBe(3);
      expect(JSON.parse(unknownJson.stdout)).not.toHaveProperty('target');
    });
  });
});
