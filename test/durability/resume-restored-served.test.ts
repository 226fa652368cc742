import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, expectAllOk, writeSittings } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';

/**
 * As resume-restored.test.ts, through `local serve`: the run's start head comes with its first answer
 * (a `head` journal line), so a resume after the served store was restored (server stopped, the copy
 * put back, served again) sends exactly what the store lost (docs/runs.md, "A store restored under a run").
 */

const SCHEDULES = 200;
let dir: string;
let env: Record<string, string>;
let server: LocalServer | undefined;
let port = 0;

const store = () => join(dir, 'store');

async function serve(): Promise<void> {
  server = await serveLocalStore({ storeDir: store(), port });
  port = server.port;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resume-restored-served-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  const init = ['local', 'init', '--store', store(), '--seed', join(ROOT, 'fixtures/world.json')];
  expect((await examctl(init, dir, env)).code).toBe(0);
  port = 0;
  await serve();
  writeSittings(dir, SCHEDULES);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

// The markers leave 80 schedules, then 40, to send: the push keeps 8 in flight (not local serve's default
// 32, docs/remote.md), so what its killed attempt had in flight or answered unrecorded stays well below that.
const remote = () => ['--target', 'remote', '--base-url', `http://127.0.0.1:${port}`, '--yes', '--concurrency', '8'];

async function killedAt(args: string[], marker: string): Promise<{ signal: string | null; stderr: string }> {
  return examctl(args, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: `${marker}:SIGKILL` });
}

/** A copy of the served store (its LOCK left out: the server holds it). */
async function copyTo(name: string): Promise<void> {
  await cp(store(), join(dir, name), { recursive: true, filter: (from) => !from.endsWith('LOCK') });
}

/** The server stopped, the copy put back, the store served again at the same address. */
async function restore(name: string): Promise<void> {
  await server?.close();
  await rm(store(), { recursive: true, force: true });
  await cp(join(dir, name), store(), { recursive: true, preserveTimestamps: true });
  await serve();
}

async function heldSchedules(): Promise<number> {
  const world = JSON.parse((await examctl(['local', 'export', '--store', store()], dir, env)).stdout) as {
    Schedules: { ScheduleExtId?: string }[];
  };
  return world.Schedules.filter((schedule) => schedule.ScheduleExtId?.startsWith('S-R-')).length;
}

/** The killed push's run id, and the head its journal recorded. */
async function killedPush(): Promise<{ run: string; head: string | undefined }> {
  const killed = await killedAt(['schedule', 'push', '--file', 'sittings.csv', ...remote()], 'outcome:120');
  expect(killed.signal).toBe('SIGKILL');
  const run = /\brun (\S+) \(examctl runs show/.exec(killed.stderr)?.[1] ?? '';
  const journal = await readFile(join(dir, 'runs', run, 'journal.ndjson'), 'utf8');
  const head = /"t":"head","head":"([A-Za-z0-9_-]{22})"/.exec(journal)?.[1];
  return { run, head };
}

/** A resume killed at a marker, then one that finishes: every schedule once, nothing "already exists". */
async function resumedTwice(): Promise<void> {
  const resume = ['runs', 'resume', '--base-url', `http://127.0.0.1:${port}`, '--yes'];
  expect((await killedAt(resume, 'outcome:40')).signal).toBe('SIGKILL');
  const second = await examctl(['--json', ...resume], dir, env);
  expectAllOk(second, SCHEDULES);
  expect(await heldSchedules()).toBe(SCHEDULES);
}

describe('a schedule push through local serve killed, the served store restored, two resumes', () => {
  it('restored to the copy taken before the run: every schedule once, exit 0', async () => {
    await copyTo('before');
    const { run, head } = await killedPush();
    expect(head).toBeDefined();
    await restore('before');
    await resumedTwice();
    expect(run).not.toBe('');
  });

  it('restored to a copy taken after part of the run: every schedule once, exit 0', async () => {
    const { head } = await killedPush();
    expect(head).toBeDefined();
    await copyTo('partway');
    const resume = ['runs', 'resume', '--base-url', `http://127.0.0.1:${port}`, '--yes'];
    expect((await killedAt(resume, 'outcome:40')).signal).toBe('SIGKILL');
    await restore('partway');
    await resumedTwice();
  });

  it('on the store it left (no restore): no kept row is sent again', async () => {
    await killedPush();
    const resumed = await examctl(
      ['--json', 'runs', 'resume', '--base-url', `http://127.0.0.1:${port}`, '--yes'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('not in the store');
    const items = (JSON.parse(resumed.stdout) as { items: { note?: string; errors: unknown[] }[] }).items;
    expect(items.filter((item) => item.note?.startsWith('sent again') === true)).toEqual([]);
    expect(await heldSchedules()).toBe(SCHEDULES);
  });
});
