import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { examctlStep } from '../support/in-process.js';
import { fingerprintInput } from '../../src/runs/resume-plan.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/**
 * Trial 5, f07: `runs resume --profile prod --target-from-run` of a run sent to staging sent
 * prod's token to staging, and its settings line said "(--base-url)" (none was typed) and
 * attributed prod's token file to the run's profile. A profile named at resume time for another
 * target is refused (exit 2, nothing sent); the line says the target is the journal's and lists
 * the recorded profile's settings it applies.
 */

let dir: string;
let runsDir: string;
let server: LocalServer;
let log: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resume-profile-'));
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
    'ExternalId,FirstName,LastName,Email\nu-1,Ann,Lee,u-1@example.test\nu-2,Bo,Lee,u-2@example.test\n',
  );
  await writeFile(join(dir, 't-staging'), 'dev-token\n', { mode: 0o600 });
  await writeFile(join(dir, 't-prod'), 'prod-token\n', { mode: 0o600 });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (argv: string[], env: Record<string, string> = {}) =>
  examctlStep(argv, dir, { EXAMCTL_RUNS_DIR: runsDir, CI: 'true', ...env });

/** A user sync killed on the default profile staging (set Role=Author), as its journal records it (`origin`: as today's do). */
async function killedOnStaging(withOrigin = false): Promise<string> {
  const file = join(dir, 'users.csv');
  const journal = await RunJournal.start(runsDir, {
    command: 'user sync',
    options: { file, cwd: dir, yes: true },
    target: { kind: 'remote', baseUrl: server.url },
    input: await fingerprintInput(file),
    units: 2,
    profile: { name: 'staging', defaults: { set: { Role: 'Author' } }, configDir: join(dir, '.config') },
    ...(withOrigin
      ? {
          origin: {
            targetFrom: 'profile staging',
            profile: { name: 'staging', via: 'the default profile', used: true, settings: {} },
          },
        }
      : {}),
  });
  await journal.close();
  return journal.id;
}

const posts = (): string[] => log.filter((line) => line.startsWith('POST '));

describe('runs resume and a profile named for another target', () => {
  beforeEach(async () => {
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'staging',
          '--base-url',
          server.url,
          '--token-file',
          join(dir, 't-staging'),
          '--set',
          'Role=Author',
          '--default',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'prod',
          '--base-url',
          'https://prod.example.test',
          '--token-file',
          join(dir, 't-prod'),
        ])
      ).code,
    ).toBe(0);
  });

  it('--profile prod (or EXAMCTL_PROFILE=prod) with --target-from-run is refused, exit 2, saying how to choose; nothing is sent', async () => {
    const id = await killedOnStaging();
    const typed = await cli(['--profile', 'prod', 'runs', 'resume', '--target-from-run']);
    expect(typed.code, typed.stderr).toBe(2);
    expectCoded(typed.stderr, 'E2200', `run ${id} `, server.url, '--profile prod', 'https://prod.example.test');
    const fromEnv = await cli(['runs', 'resume', '--target-from-run'], { EXAMCTL_PROFILE: 'prod' });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expectCoded(fromEnv.stderr, 'E2200', 'EXAMCTL_PROFILE prod', 'https://prod.example.test');
    expect(posts()).toEqual([]);
  });

  it('a LOCAL run: --profile prod or EXAMCTL_PROFILE=prod (a remote profile) is refused, exit 2, as for a remote run (trial 6, 8)', async () => {
    const file = join(dir, 'users.csv');
    const store = join(dir, 'store');
    const journal = await RunJournal.start(runsDir, {
      command: 'user sync',
      options: { file, cwd: dir, store, yes: true },
      target: { kind: 'local', store },
      input: await fingerprintInput(file),
      units: 2,
    });
    await journal.close();
    const typed = await cli(['--profile', 'prod', 'runs', 'resume']);
    expect(typed.code, typed.stderr).toBe(2);
    expectCoded(
      typed.stderr,
      'E2200',
      `run ${journal.id} `,
      `local store ${store}`,
      '--profile prod',
      'https://prod.example.test',
    );
    const fromEnv = await cli(['runs', 'resume'], { EXAMCTL_PROFILE: 'prod' });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expectCoded(fromEnv.stderr, 'E2200', 'EXAMCTL_PROFILE prod', 'https://prod.example.test');
  });

  it('another profile of the same base URL (--profile or EXAMCTL_PROFILE) gives the token; the line names it and where it was chosen (trial 6, 7)', async () => {
    await writeFile(join(dir, 't-rotated'), 'dev-token\n', { mode: 0o600 });
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'rotated',
          '--base-url',
          `${server.url}/`,
          '--token-file',
          join(dir, 't-rotated'),
        ])
      ).code,
    ).toBe(0);
    for (const [argv, env, via] of [
      [['--profile', 'rotated', 'runs', 'resume'], {}, '--profile'],
      [['runs', 'resume'], { EXAMCTL_PROFILE: 'rotated' }, 'EXAMCTL_PROFILE'],
    ] as const) {
      await killedOnStaging();
      const resumed = await cli([...argv], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(
        `(the run's journal), token from profile rotated (${via}): tokenFile ${join(dir, 't-rotated')}; profile staging (the run's journal): set Role=Author; sync memory `,
      );
    }
  });

  it("the run's own profile resumes it; the line names the journal as the target's source and the recorded settings it applies", async () => {
    await killedOnStaging();
    const resumed = await cli(['--profile', 'staging', 'runs', 'resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `target: remote ${server.url} (the run's journal); profile staging (the run's journal): set Role=Author, tokenFile ${join(dir, 't-staging')}`,
    );
    expect(resumed.stderr).not.toContain('--base-url');
    expect(posts()).toHaveLength(2);
  });
});

describe("runs resume --target-from-run: the token is the recorded URL's (trial 10, F03, F08)", () => {
  beforeEach(async () => {
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'staging',
          '--base-url',
          server.url,
          '--token-file',
          join(dir, 't-staging'),
          '--set',
          'Role=Author',
          '--default',
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'prod',
          '--base-url',
          'https://prod.example.test',
          '--token-file',
          join(dir, 't-prod'),
        ])
      ).code,
    ).toBe(0);
  });

  it("the run's --profile repointed to another service gives no token: exit 2 naming its URL and --token-file; the old service's token file then resumes it", async () => {
    const file = join(dir, 'users.csv');
    const journal = await RunJournal.start(runsDir, {
      command: 'user sync',
      options: { file, cwd: dir, yes: true, profile: 'school', set: ['Role=Author'] },
      target: { kind: 'remote', baseUrl: server.url },
      input: await fingerprintInput(file),
      units: 2,
      profile: { name: 'school', defaults: {}, configDir: join(dir, '.config') },
    });
    await journal.close();
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'school',
          '--base-url',
          'https://new.example.test',
          '--token-file',
          join(dir, 't-prod'),
        ])
      ).code,
    ).toBe(0);
    for (const argv of [
      ['runs', 'resume'],
      ['runs', 'resume', '--target-from-run'],
    ]) {
      const refused = await cli(argv);
      expect(refused.code, refused.stderr).toBe(2);
      expectCoded(
        refused.stderr,
        'E2200',
        `run ${journal.id} `,
        server.url,
        'profile school',
        'https://new.example.test',
        '--token-file <path>',
      );
    }
    expect(posts()).toEqual([]);
    const resumed = await cli(['runs', 'resume', '--target-from-run', '--token-file', join(dir, 't-staging')]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
  });

  it('a profile the run named beside its own typed --base-url gives its token there only while it names the URL it named then', async () => {
    const file = join(dir, 'users.csv');
    const killed = async (then?: string): Promise<string> => {
      const journal = await RunJournal.start(runsDir, {
        command: 'user sync',
        options: { file, cwd: dir, yes: true, profile: 'school', baseUrl: server.url, set: ['Role=Author'] },
        target: { kind: 'remote', baseUrl: server.url },
        input: await fingerprintInput(file),
        units: 2,
        profile: {
          name: 'school',
          defaults: {},
          configDir: join(dir, '.config'),
          ...(then === undefined ? {} : { baseUrl: then }),
        },
      });
      await journal.close();
      return journal.id;
    };
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'school',
          '--base-url',
          'https://old.example.test',
          '--token-file',
          join(dir, 't-staging'),
        ])
      ).code,
    ).toBe(0);
    // Repointed since, with the new service's token: that token never goes to the run's URL.
    const repointed = await killed('https://old.example.test');
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'school',
          '--base-url',
          'https://new.example.test',
          '--token-file',
          join(dir, 't-prod'),
        ])
      ).code,
    ).toBe(0);
    const refused = await cli(['runs', 'resume', repointed, '--target-from-run']);
    expect(refused.code, refused.stderr).toBe(2);
    expectCoded(refused.stderr, 'E2200', `run ${repointed} `, server.url, 'profile school', 'https://new.example.test');
    expect(posts()).toEqual([]);
    // Still naming the URL it named then (spelt otherwise): the run's own choice stands.
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'school',
          '--base-url',
          'https://OLD.example.test/',
          '--token-file',
          join(dir, 't-staging'),
        ])
      ).code,
    ).toBe(0);
    const kept = await cli(['runs', 'resume', await killed('https://old.example.test'), '--target-from-run']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
  });

  it("the run's default profile repointed gives no token either, said as the run's profile", async () => {
    const id = await killedOnStaging();
    // Repointed with the new service's token, as `login --base-url` leaves it.
    expect(
      (
        await cli([
          'config',
          'set-profile',
          'staging',
          '--base-url',
          'https://new.example.test',
          '--token-file',
          join(dir, 't-prod'),
        ])
      ).code,
    ).toBe(0);
    const refused = await cli(['runs', 'resume', '--target-from-run']);
    expect(refused.code, refused.stderr).toBe(2);
    expectCoded(
      refused.stderr,
      'E2200',
      `run ${id} `,
      server.url,
      "the run's profile staging",
      'https://new.example.test',
    );
    expect(posts()).toEqual([]);
  });

  it('EXAMCTL_TOKEN never goes to the URL the run took from the default profile while nothing names it, as in a fresh run (trial45 F02)', async () => {
    const id = await killedOnStaging(true);
    const refused = await cli(['runs', 'resume', id], { EXAMCTL_TOKEN: 'other-service-token' });
    expect(refused.code, refused.stderr).toBe(2);
    expectCoded(refused.stderr, 'E2200', `run ${id} `, server.url, 'default profile staging', 'EXAMCTL_TOKEN');
    expect(posts()).toEqual([]);
    const named = await cli(['runs', 'resume', id], { EXAMCTL_TOKEN: 'dev-token', EXAMCTL_BASE_URL: server.url });
    expect(named.code, named.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
  });

  it("after config use another profile, the run's own profile (same URL) gives its token; the line says so", async () => {
    await killedOnStaging();
    expect((await cli(['config', 'use', 'prod'])).code).toBe(0);
    const resumed = await cli(['runs', 'resume', '--target-from-run']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `target: remote ${server.url} (the run's journal); profile staging (the run's journal): set Role=Author, tokenFile ${join(dir, 't-staging')}; sync memory `,
    );
    expect(posts()).toHaveLength(2);
  });

  it('a default profile set aside in a resume is not blamed on a --target remote nobody typed', async () => {
    const file = join(dir, 'users.csv');
    const journal = await RunJournal.start(runsDir, {
      command: 'user sync',
      options: { file, cwd: dir, yes: true, set: ['Role=Author'] },
      target: { kind: 'remote', baseUrl: server.url },
      input: await fingerprintInput(file),
      units: 2,
      profile: null,
    });
    await journal.close();
    expect((await cli(['config', 'use', 'prod'])).code).toBe(0);
    const resumed = await cli(['runs', 'resume', '--target-from-run'], { EXAMCTL_TOKEN: 'dev-token' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      "the default profile prod is not used: the run's journal names another target than its own, remote https://prod.example.test",
    );
    expect(resumed.stderr).not.toContain('--target remote');
    expect(posts()).toHaveLength(2);
  });
});

describe('runs show gives where the target, token and profile came from (trial 10, F10)', () => {
  it("--json and --report .xml carry the live report's targetFrom, tokenFrom and profile; an older journal leaves them out", async () => {
    expect(
      (await cli(['config', 'set-profile', 'staging', '--base-url', server.url, '--set', 'Role=Author', '--default']))
        .code,
    ).toBe(0);
    const run = await cli(['--yes', '--json', '--report', 'run.xml', 'user', 'sync', '--file', 'users.csv'], {
      EXAMCTL_TOKEN: 'dev-token',
      EXAMCTL_PROFILE: 'staging',
    });
    expect(run.code, run.stderr).toBe(0);
    const live = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(live).toMatchObject({
      targetFrom: 'profile staging',
      tokenFrom: 'EXAMCTL_TOKEN',
      profile: { name: 'staging', via: 'EXAMCTL_PROFILE' },
    });
    const shown = await cli(['--json', '--report', 'show.xml', 'runs', 'show', String(live.run)]);
    expect(shown.code, shown.stderr).toBe(0);
    const { targetFrom, tokenFrom, profile } = live;
    expect(JSON.parse(shown.stdout)).toMatchObject({ targetFrom, tokenFrom, profile });
    const properties = (file: string): string[] =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/<property name="(\w+)" value="([^"]*)"/g)].map(
        (m) => `${m[1]}=${m[2]}`,
      );
    expect(properties('show.xml')).toEqual(properties('run.xml'));
    expect(properties('show.xml').filter((p) => /^(targetFrom|tokenFrom|profile)=/.test(p))).toHaveLength(3);
    const older = JSON.parse((await cli(['--json', 'runs', 'show', await killedOnStaging()])).stdout) as Record<
      string,
      unknown
    >;
    expect(Object.keys(older).filter((key) => ['targetFrom', 'tokenFrom', 'profile'].includes(key))).toEqual([]);
  });
});

describe('runs resume without an id (trial 5, f13)', () => {
  it('takes the newest run only when it is the interrupted one; an older interrupted run is refused, exit 2, naming it; its id resumes it', async () => {
    const env = { EXAMCTL_BASE_URL: server.url, EXAMCTL_TOKEN: 'dev-token' };
    const old = await killedOnStaging();
    // A later night on another target, finished: the interrupted run is an older job's.
    const night = await cli([
      '--yes',
      '--store',
      'st',
      'user',
      'sync',
      '--file',
      'users.csv',
      '--set',
      'Role=Candidate',
    ]);
    expect(night.code, night.stderr).toBe(0);
    const refused = await cli(['runs', 'resume'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `the newest run, \\S+, is not interrupted; the newest interrupted one is ${old}: examctl runs resume ${old} finishes it`,
      ),
    );
    expect(posts()).toEqual([]);
    const byId = await cli(['runs', 'resume', old], env);
    expect(byId.code, byId.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
    // Now none is interrupted: nothing to do, as before.
    expect((await cli(['runs', 'resume'], env)).stderr).toMatch(/no interrupted run to resume/);
  });
});

describe('a run whose journal records --store beside --base-url (trial 19, f01: refused now, recorded before)', () => {
  it("resumes to its recorded target: the flag naming the other target is not the resume's", async () => {
    const file = join(dir, 'users.csv');
    const options = { file, cwd: dir, yes: true, set: ['Role=Author'], store: join(dir, 'st'), baseUrl: server.url };
    const journal = await RunJournal.start(runsDir, {
      command: 'user sync',
      options,
      target: { kind: 'remote', baseUrl: server.url },
      input: await fingerprintInput(file),
      units: 2,
    });
    await journal.close();
    const resumed = await cli(['runs', 'resume', journal.id, '--target-from-run', '--yes'], {
      EXAMCTL_TOKEN: 'dev-token',
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
    expect(existsSync(join(dir, 'st'))).toBe(false);
  });
});
