import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded, failedCheck } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from '../support/string-sink.js';

/**
 * Issue 22 (7): loose permissions are said once on stderr (a config holding a token that others
 * can read, a runs directory or store others can write), and `doctor` lists them.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-perms-'));
  await writeFile(
    join(dir, 'users.csv'),
    'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\n',
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new StringSink();
  const stderr = new StringSink();
  const code = await runCli(argv, {
    stdout,
    stderr,
    env: {
      EXAMCTL_NOW: '2026-11-21T10:00:00Z',
      EXAMCTL_CONFIG_DIR: join(dir, '.config'),
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      ...env,
    },
    now: () => new Date('2026-11-21T10:00:00Z'),
    isTTY: false,
    cwd: dir,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;

describe('loose permissions', () => {
  it('a config file holding a token, readable by others: warned once per command, and doctor lists it', async () => {
    await mkdir(join(dir, '.config'));
    const file = join(dir, '.config', 'config.json');
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        defaultProfile: 'p',
        profiles: { p: { baseUrl: 'https://exam.example.test', token: 'tok-0123456789abcdef' } },
      }),
    );
    await chmod(file, 0o644);
    const run = await cli(['--dry-run', 'user', 'sync', '--file', 'users.csv']);
    expect(run.code, run.stderr).toBe(0);
    expect(count(run.stderr, /holds a token and is readable by group or others \(mode 644\); chmod 600/)).toBe(1);
    expect(run.stderr).not.toContain('tok-0123456789abcdef');
    await chmod(file, 0o600);
    expect((await cli(['--dry-run', 'user', 'sync', '--file', 'users.csv'])).stderr).not.toMatch(
      /readable by group or others/,
    );
    await chmod(file, 0o644);
    const doctor = JSON.parse((await cli(['--json', 'doctor'])).stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    expect(doctor.checks.find((check) => check.name === 'permissions')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/config\.json holds a token/) as string,
    });
  });

  it('a runs directory writable by its group (umask 002) refuses a new run (exit 2, nothing sent): its runs could not be resumed', async () => {
    await mkdir(join(dir, 'runs'));
    await chmod(join(dir, 'runs'), 0o775);
    const run = await cli(['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv']);
    expect(run.code, run.stderr).toBe(2);
    expect(
      count(
        run.stderr,
        /the runs directory \S+ is writable by group \(mode 775\).*chmod go-w .*; a run journaled there could not be resumed, so none is started: nothing was sent/,
      ),
    ).toBe(1);
    expect(await readdir(join(dir, 'runs'))).toEqual([]);
    // A dry run keeps no journal: it goes ahead.
    expect(
      (
        await cli([
          '--target',
          'local',
          '--store',
          join(dir, 'store'),
          '--dry-run',
          'user',
          'sync',
          '--file',
          'users.csv',
        ])
      ).code,
    ).toBe(0);
    await chmod(join(dir, 'runs'), 0o755);
    expect(
      (await cli(['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv'])).code,
    ).toBe(0);
  });

  it('a runs directory writable by others refuses a run; a store writable by others is refused (exit 2, naming it and the fix); doctor fails naming both', async () => {
    const store = join(dir, 'store');
    expect((await cli(['--store', store, 'local', 'init'])).code).toBe(0);
    await mkdir(join(dir, 'runs'));
    await chmod(join(dir, 'runs'), 0o1777);
    const run = await cli(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv']);
    expect(run.code, run.stderr).toBe(2);
    expectCoded(run.stderr, 'E2400', join(dir, 'runs'), 'mode 1777');
    expect(count(run.stderr, /mode 1777/)).toBe(1);
    await chmod(store, 0o777);
    const refused = await cli(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv']);
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2400', store, 'mode 777', `chmod go-w ${store}`);
    const doctor = await cli(['--target', 'local', '--store', store, 'doctor']);
    failedCheck(doctor.stdout, 'permissions', 'E2400', join(dir, 'runs'), 'mode 1777', store, 'mode 777');
    expect(doctor.code).toBe(3);
    await chmod(join(dir, 'runs'), 0o700);
    await chmod(store, 0o700);
    const quiet = await cli(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toMatch(/writable by others/);
    expect((await cli(['--target', 'local', '--store', store, 'doctor'])).stdout).toMatch(/ok {4}permissions/);
  });
  it("a token file readable by others: doctor lists the one it uses (--token-file, a profile's tokenFile, a local target's --token-file)", async () => {
    const token = join(dir, 'token.txt');
    await writeFile(token, 'tok-0123456789abcdef\n');
    await chmod(token, 0o644);
    type Doctor = { checks: { name: string; status: string; detail: string }[] };
    const permissions = async (argv: string[]) =>
      (JSON.parse((await cli(['--json', ...argv, 'doctor'])).stdout) as Doctor).checks.find(
        (check) => check.name === 'permissions',
      );
    // Port 1 on loopback refuses at once: the probe fails, the permissions check is made all the same.
    const remote = ['--base-url', 'http://127.0.0.1:1', '--token-file', 'token.txt'];
    expect(await permissions(remote)).toMatchObject({
      status: 'warn',
      detail: `--token-file: ${token} is readable by group or others (mode 644); consider chmod 600 ${token}`,
    });
    expect(
      await permissions(['--target', 'local', '--store', join(dir, 'store'), '--token-file', 'token.txt']),
    ).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(`${token} is readable by group or others`) as string,
    });
    await mkdir(join(dir, '.config'));
    await writeFile(
      join(dir, '.config', 'config.json'),
      JSON.stringify({
        version: 1,
        defaultProfile: 'p',
        profiles: { p: { baseUrl: 'http://127.0.0.1:1', tokenFile: token } },
      }),
    );
    expect(await permissions([])).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(
        `the profile's token file: ${token} is readable by group or others (mode 644)`,
      ) as string,
    });
    await chmod(token, 0o600);
    expect(await permissions(remote)).toMatchObject({
      status: 'ok',
      detail: "config, token file, runs and sync directories and store are the user's own, and not open to other users",
    });
    const text = await cli([...remote, 'doctor']);
    expect(text.stdout).toMatch(/ok {4}permissions config, token file, runs and sync directories/);
    expect(text.stdout).not.toContain('tok-0123456789abcdef');
  });
});
