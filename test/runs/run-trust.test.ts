import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from '../support/string-sink.js';
import { fingerprintInput } from '../../src/runs/resume-plan.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { type RunTrust } from '../../src/runs/run-trust.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { examctl as examctlIn, serveWithFaults } from '../support/faulty-serve.js';
import { examctl as spawned } from '../support/cli.js';

/**
 * Issue 22 (4) and 26 (5): `runs resume|show|list` use only the current user's runs, in run
 * and runs directories nobody else can write; a resume says its recorded target and sends to
 * one that differs from today's configuration only with --target-from-run (never on --yes
 * alone); on the same target it keeps the run's --yes, also under CI=true.
 */

let dir: string;
let runsDir: string;
let server: LocalServer;
let log: string[];
const ME = (process.getuid?.() ?? 0) as number;
/** Tests run as root: "another user" is played by giving the CLI another uid as its own. */
const OTHER_USER: RunTrust = { uid: ME + 4242 };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-trust-'));
  runsDir = join(dir, 'runs');
  log = [];
  server = await serveLocalStore({
    storeDir: join(dir, 'served-store'),
    port: 0,
    now: () => new Date('2026-11-21T10:00:00Z'),
    log: (line) => log.push(line),
  });
  await writeFile(
    join(dir, 'users.csv'),
    'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\nu-2,Bo,Lee,u-2@example.test,Candidate\n',
  );
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(
  argv: string[],
  env: Record<string, string>,
  runTrust?: RunTrust,
  confirm?: (question: string) => Promise<boolean>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new StringSink();
  const stderr = new StringSink();
  const code = await runCli(argv, {
    stdout,
    stderr,
    env: {
      EXAMCTL_NOW: '2026-11-21T10:00:00Z',
      EXAMCTL_CONFIG_DIR: join(dir, '.config'),
      EXAMCTL_RUNS_DIR: runsDir,
      ...env,
    },
    now: () => new Date('2026-11-21T10:00:00Z'),
    isTTY: confirm !== undefined,
    cwd: dir,
    ...(runTrust === undefined ? {} : { runTrust }),
    ...(confirm === undefined ? {} : { confirm }),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** An interrupted user sync journal with a valid checksum, as anyone able to write the runs dir could leave it. */
async function plantRun(options: Record<string, unknown>): Promise<string> {
  const file = join(dir, 'users.csv');
  const journal = await RunJournal.start(runsDir, {
    command: 'user sync',
    options: { file, cwd: dir, baseUrl: server.url, ...options },
    target: { kind: 'remote', baseUrl: server.url },
    input: await fingerprintInput(file),
    units: 2,
  });
  await journal.close();
  return journal.id;
}

const requests = (): number => log.filter((line) => line.startsWith('POST ')).length;

describe('runs of another user, or in a directory others can write, are never used', () => {
  it('a run owned by another uid: resume and show refuse with exit 2 and say why; list names it as skipped; nothing is sent', async () => {
    const id = await plantRun({ yes: true });
    const env = { EXAMCTL_TOKEN: 'victim-token', EXAMCTL_BASE_URL: server.url, CI: 'true' };
    const resumed = await cli(['--yes', 'runs', 'resume', id, '--target-from-run'], env, OTHER_USER);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      new RegExp(`run ${id} not used: .*owned by uid ${ME}, not by you \\(uid ${OTHER_USER.uid}\\)`),
    );
    // The newest interrupted run of *this* user is what `runs resume` takes; another's is passed over.
    const byDefault = await cli(['--yes', 'runs', 'resume'], env, OTHER_USER);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stderr).toContain(`in ${runsDir}: nothing`);
    const shown = await cli(['runs', 'show', id], env, OTHER_USER);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/owned by uid/);
    const listed = await cli(['runs', 'list'], env, OTHER_USER);
    expect(listed.code).toBe(0);
    // Listed as a row that says why it is not used, never as one of this user's runs.
    expect(listed.stdout).toMatch(new RegExp(`^${id}  unreadable   skipped: .*owned by uid ${ME}.*\n$`));
    const json = JSON.parse((await cli(['--json', 'runs', 'list'], env, OTHER_USER)).stdout) as {
      runs: unknown[];
      unreadable: { id: string; reason: string }[];
    };
    expect(json.runs).toEqual([]);
    expect(json.unreadable).toEqual([{ id, reason: expect.stringMatching(/^skipped: .*owned by uid/) as string }]);
    expect(requests()).toBe(0);
    // The owner is served as before.
    expect((await cli(['runs', 'list'], env)).stdout).toContain(id);
  });

  it('a shared runs dir (mode 1777): list, show and resume refuse with exit 2 naming the mode; nothing is sent', async () => {
    const id = await plantRun({ yes: true });
    await chmod(runsDir, 0o1777);
    const env = { EXAMCTL_TOKEN: 'victim-token', EXAMCTL_BASE_URL: server.url };
    for (const argv of [
      ['runs', 'list'],
      ['runs', 'show', id],
      ['--yes', 'runs', 'resume'],
    ]) {
      const run = await cli(argv, env);
      expect(run.code, argv.join(' ')).toBe(2);
      expectCoded(run.stderr, 'E2400', runsDir, 'mode 1777');
      expect(run.stderr).toContain('chmod go-w');
    }
    expect(requests()).toBe(0);
  });

  it('a run directory writable by its group is skipped by list and refused by show', async () => {
    const loose = await plantRun({});
    const fine = await plantRun({});
    await chmod(join(runsDir, loose), 0o770);
    const listed = await cli(['runs', 'list'], {});
    expect(listed.stdout).toContain(fine);
    expect(listed.stdout).toMatch(
      new RegExp(`\n${loose}  unreadable   skipped: the run directory \\S+ is writable by group \\(mode 770\\)`),
    );
    expect((await cli(['runs', 'show', loose], {})).code).toBe(2);
  });
});

describe('runs resume and its recorded target', () => {
  it('says the recorded target; a base URL other than the configured one is refused on --yes (CI=true), sent with --target-from-run', async () => {
    const id = await plantRun({ yes: true });
    const env = { EXAMCTL_TOKEN: 'dev-token', CI: 'true' };
    // Nothing configured now (the run named its --base-url on the command line) differs.
    const unconfigured = await cli(['--yes', 'runs', 'resume'], env);
    expect(unconfigured.code).toBe(2);
    expectCoded(unconfigured.stderr, 'E2200', `run ${id}`, server.url);
    expect(unconfigured.stderr).toMatch(/is not configured now/);
    expect(unconfigured.stderr).toContain('--target-from-run');
    expect(requests()).toBe(0);
    const confirmed = await cli(['runs', 'resume', '--target-from-run'], env);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(requests()).toBe(2);
  });

  it("EXAMCTL_TOKEN while EXAMCTL_BASE_URL names another URL is that URL's token: refused, exit 2, also with --target-from-run or a yes at the prompt (trial 10, F03)", async () => {
    const id = await plantRun({ yes: true });
    const env = { EXAMCTL_TOKEN: 'new-service-token', EXAMCTL_BASE_URL: 'https://exam.example.test', CI: 'true' };
    for (const argv of [
      ['runs', 'resume'],
      ['runs', 'resume', '--target-from-run'],
    ]) {
      const refused = await cli(argv, env);
      expect(refused.code, argv.join(' ')).toBe(2);
      expectCoded(
        refused.stderr,
        'E2200',
        `run ${id} `,
        server.url,
        'EXAMCTL_BASE_URL',
        'https://exam.example.test',
        '--token-file <path>',
      );
    }
    const asked = await cli(
      ['runs', 'resume'],
      { EXAMCTL_TOKEN: 'new-service-token', EXAMCTL_BASE_URL: 'https://exam.example.test' },
      undefined,
      async () => true,
    );
    expect(asked.code).toBe(2);
    expect(requests()).toBe(0);
  });

  it('on a terminal a differing target is asked about (the question names it); no is exit 2 with nothing sent, yes sends', async () => {
    await plantRun({ yes: true });
    const env = { EXAMCTL_TOKEN: 'dev-token' };
    const questions: string[] = [];
    const declined = await cli(
      ['--yes', 'runs', 'resume'],
      env,
      undefined,
      async (question) => (questions.push(question), false),
    );
    expect(declined.code).toBe(2);
    expectCoded(declined.stderr, 'E2200');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(
      new RegExp(
        `its base URL .* Send the rest of the run, with your token, to remote ${server.url.replace(/[.]/g, '\\.')}\\?$`,
      ),
    );
    expect(requests()).toBe(0);
    const accepted = await cli(['runs', 'resume'], env, undefined, async () => true);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(requests()).toBe(2);
  });

  it('a recorded token file or --allow-insecure-http that is not given now is refused even on the same base URL', async () => {
    await writeFile(join(dir, 'planted-token'), 'dev-token\n', { mode: 0o600 });
    await plantRun({ tokenFile: join(dir, 'planted-token') });
    const env = { EXAMCTL_TOKEN: 'victim-token', EXAMCTL_BASE_URL: server.url, CI: 'true' };
    const refused = await cli(['--yes', 'runs', 'resume'], env);
    expect(refused.code).toBe(2);
    expectCoded(refused.stderr, 'E2200', 'planted-token', 'EXAMCTL_TOKEN');
    expect(refused.stderr).not.toContain('victim-token');
    await rm(runsDir, { recursive: true });
    await plantRun({ profile: 'prod' });
    // The run's profile names another URL now: its token is another.
    expect((await cli(['config', 'set-profile', 'prod', '--base-url', 'http://127.0.0.1:9'], {})).code).toBe(0);
    const otherProfile = await cli(['--yes', 'runs', 'resume'], env);
    expect(otherProfile.code).toBe(2);
    expectCoded(otherProfile.stderr, 'E2200', 'profile prod');
    await rm(runsDir, { recursive: true });
    await plantRun({ allowInsecureHttp: true });
    const insecure = await cli(['--yes', 'runs', 'resume'], env);
    expect(insecure.code).toBe(2);
    expectCoded(insecure.stderr, 'E2200', '--allow-insecure-http');
    expect(requests()).toBe(0);
  });

  it("a run's profile gone now (a CI runner): its URL in EXAMCTL_BASE_URL and a token go on; another URL is refused (trial 12, F05)", async () => {
    await plantRun({ profile: 'prod', yes: true });
    const other = await cli(['runs', 'resume', '--target-from-run'], {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_BASE_URL: 'http://127.0.0.1:9',
      CI: 'true',
    });
    expect([other.code, requests()]).toEqual([2, 0]);
    const env = { EXAMCTL_TOKEN: 'dev-token', EXAMCTL_BASE_URL: server.url, CI: 'true' };
    // A --profile typed now is not left out: none of that name is exit 2.
    expect((await cli(['runs', 'resume', '--profile', 'prod'], env)).stderr).toContain('no profile named "prod"');
    const resumed = await cli(['runs', 'resume'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(requests()).toBe(2);
  });

  it("an empty EXAMCTL_BASE_URL is not used by a resume: its target is the journal's (trial 12, F03)", async () => {
    await plantRun({ yes: true });
    const resumed = await cli(['runs', 'resume', '--target-from-run'], {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_BASE_URL: '',
      CI: 'true',
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(requests()).toBe(2);
  });

  it('under CI=true a resume on the same target keeps the killed run its --yes (one command recovers); a run without --yes still asks for it', async () => {
    // A real run, started with --yes, ended by a service that lost every answer (exit 3).
    const failing = await serveWithFaults(dir, 'lost:100%', 1, []);
    const first = await examctlIn(
      dir,
      ['--target', 'remote', '--base-url', failing.url, '--yes', '--json', 'user', 'sync', '--file', 'users.csv'],
      {
        EXAMCTL_TOKEN: 'dev-token',
        EXAMCTL_RUNS_DIR: runsDir,
      },
    );
    await failing.close();
    expect(first.code, first.stderr).toBe(3);
    const healthy = await serveLocalStore({
      storeDir: join(dir, 'served-store'),
      port: Number(new URL(failing.url).port),
      now: () => new Date('2026-11-21T10:00:00Z'),
    });
    try {
      const resumed = await cli(['runs', 'resume'], {
        EXAMCTL_TOKEN: 'dev-token',
        EXAMCTL_BASE_URL: failing.url,
        CI: 'true',
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).not.toMatch(/needs confirmation/);
    } finally {
      await healthy.close();
    }
    await rm(runsDir, { recursive: true });
    await plantRun({});
    const withoutYes = await cli(['runs', 'resume'], {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_BASE_URL: server.url,
      CI: 'true',
    });
    expect(withoutYes.code).toBe(2);
    expect(withoutYes.stderr).toMatch(/needs confirmation: add --yes/);
  });
});

describe('the built CLI on a shared runs dir', () => {
  it('runs resume in a mode-1777 runs dir exits 2 naming the mode, and sends nothing', async () => {
    await plantRun({ yes: true });
    await chmod(runsDir, 0o1777);
    const run = await spawned(['--yes', 'runs', 'resume', '--target-from-run'], dir, {
      EXAMCTL_RUNS_DIR: runsDir,
      EXAMCTL_TOKEN: 'victim-token',
      CI: 'true',
    });
    expect(run.code).toBe(2);
    expectCoded(run.stderr, 'E2400', runsDir, 'mode 1777');
    expect(requests()).toBe(0);
  });
});
