import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep } from '../support/in-process.js';
import { fingerprintInput, RunJournal } from '../../src/runs/index.js';
import { serveLocalStore, type LocalServer } from '../../src/server/index.js';

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
  server = await serveLocalStore({ storeDir: join(dir, 'served-store'), port: 0, now: () => new Date('2026-11-21T10:00:00Z'), log: (line) => log.push(line) });
  await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Email\nu-1,Ann,Lee,u-1@example.test\nu-2,Bo,Lee,u-2@example.test\n');
  await writeFile(join(dir, 't-staging'), 'dev-token\n', { mode: 0o600 });
  await writeFile(join(dir, 't-prod'), 'prod-token\n', { mode: 0o600 });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (argv: string[], env: Record<string, string> = {}) => examctlStep(argv, dir, { EXAMCTL_RUNS_DIR: runsDir, CI: 'true', ...env });

/** A user sync killed on the default profile staging (set Role=Author), as its journal records it. */
async function killedOnStaging(): Promise<string> {
  const file = join(dir, 'users.csv');
  const journal = await RunJournal.start(runsDir, {
    command: 'user sync',
    options: { file, cwd: dir, yes: true },
    target: { kind: 'remote', baseUrl: server.url },
    input: await fingerprintInput(file),
    units: 2,
    profile: { name: 'staging', defaults: { set: { Role: 'Author' } }, configDir: join(dir, '.config') },
  });
  await journal.close();
  return journal.id;
}

const posts = (): string[] => log.filter((line) => line.startsWith('POST '));

describe('runs resume and a profile named for another target', () => {
  beforeEach(async () => {
    expect((await cli(['config', 'set-profile', 'staging', '--base-url', server.url, '--token-file', join(dir, 't-staging'), '--set', 'Role=Author', '--default'])).code).toBe(0);
    expect((await cli(['config', 'set-profile', 'prod', '--base-url', 'https://prod.example.test', '--token-file', join(dir, 't-prod')])).code).toBe(0);
  });

  it('--profile prod (or EXAMCTL_PROFILE=prod) with --target-from-run is refused, exit 2, saying how to choose; nothing is sent', async () => {
    const id = await killedOnStaging();
    const typed = await cli(['--profile', 'prod', 'runs', 'resume', '--target-from-run']);
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toContain(`run ${id} was sent to ${server.url}, but --profile prod gives https://prod.example.test: its token is for that target. Nothing was sent. Leave --profile prod out`);
    const fromEnv = await cli(['runs', 'resume', '--target-from-run'], { EXAMCTL_PROFILE: 'prod' });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expect(fromEnv.stderr).toContain('but EXAMCTL_PROFILE prod gives https://prod.example.test');
    expect(posts()).toEqual([]);
  });

  it('a LOCAL run: --profile prod or EXAMCTL_PROFILE=prod (a remote profile) is refused, exit 2, as for a remote run (trial 6, 8)', async () => {
    const file = join(dir, 'users.csv');
    const store = join(dir, 'store');
    const journal = await RunJournal.start(runsDir, { command: 'user sync', options: { file, cwd: dir, store, yes: true }, target: { kind: 'local', store }, input: await fingerprintInput(file), units: 2 });
    await journal.close();
    const typed = await cli(['--profile', 'prod', 'runs', 'resume']);
    expect(typed.code, typed.stderr).toBe(2);
    expect(typed.stderr).toContain(`run ${journal.id} was sent to local store ${store}, but --profile prod gives https://prod.example.test: its token is for that target. Nothing was sent.`);
    const fromEnv = await cli(['runs', 'resume'], { EXAMCTL_PROFILE: 'prod' });
    expect(fromEnv.code, fromEnv.stderr).toBe(2);
    expect(fromEnv.stderr).toContain('but EXAMCTL_PROFILE prod gives https://prod.example.test');
  });

  it('another profile of the same base URL (--profile or EXAMCTL_PROFILE) gives the token; the line names it and where it was chosen (trial 6, 7)', async () => {
    await writeFile(join(dir, 't-rotated'), 'dev-token\n', { mode: 0o600 });
    expect((await cli(['config', 'set-profile', 'rotated', '--base-url', `${server.url}/`, '--token-file', join(dir, 't-rotated')])).code).toBe(0);
    for (const [argv, env, via] of [[['--profile', 'rotated', 'runs', 'resume'], {}, '--profile'], [['runs', 'resume'], { EXAMCTL_PROFILE: 'rotated' }, 'EXAMCTL_PROFILE']] as const) {
      await killedOnStaging();
      const resumed = await cli([...argv], env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`(the run's journal), token from profile rotated (${via}): tokenFile ${join(dir, 't-rotated')}; profile staging (the run's journal): set Role=Author\n`);
    }
  });

  it("the run's own profile resumes it; the line names the journal as the target's source and the recorded settings it applies", async () => {
    await killedOnStaging();
    const resumed = await cli(['--profile', 'staging', 'runs', 'resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`target: remote ${server.url} (the run's journal); profile staging (the run's journal): set Role=Author, tokenFile ${join(dir, 't-staging')}`);
    expect(resumed.stderr).not.toContain('--base-url');
    expect(posts()).toHaveLength(2);
  });
});

describe('runs resume without an id (trial 5, f13)', () => {
  it('takes the newest run only when it is the interrupted one; an older interrupted run is refused, exit 2, naming it; its id resumes it', async () => {
    const env = { EXAMCTL_BASE_URL: server.url, EXAMCTL_TOKEN: 'dev-token' };
    const old = await killedOnStaging();
    // A later night on another target, finished: the interrupted run is an older job's.
    const night = await cli(['--yes', '--store', 'st', 'user', 'sync', '--file', 'users.csv', '--set', 'Role=Candidate']);
    expect(night.code, night.stderr).toBe(0);
    const refused = await cli(['runs', 'resume'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`the newest run, \\S+, is not interrupted; the newest interrupted one is ${old}: examctl runs resume ${old} finishes it`));
    expect(posts()).toEqual([]);
    const byId = await cli(['runs', 'resume', old], env);
    expect(byId.code, byId.stderr).toBe(0);
    expect(posts()).toHaveLength(2);
    // Now none is interrupted: nothing to do, as before.
    expect((await cli(['runs', 'resume'], env)).stderr).toMatch(/no interrupted run to resume/);
  });
});
