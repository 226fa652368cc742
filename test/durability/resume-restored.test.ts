import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, expectAllOk, writeSittings } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A schedule push killed at a marker, the store restored (rm, then a copy) to the copy taken before
 * it, a `runs resume` killed at a marker, then a second resume: the store holds every schedule
 * once, the second resume ends exit 0 with nothing "already exists" (docs/runs.md, "A store
 * restored under a run").
 */

const SCHEDULES = 400;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resume-restored-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STORE: join(dir, 'store') };
  expect((await examctl(['local', 'init', '--seed', join(ROOT, 'fixtures/world.json')], dir, env)).code).toBe(0);
  writeSittings(dir, SCHEDULES);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function killedAt(args: string[], marker: string): Promise<{ signal: string | null; stderr: string }> {
  return examctl(args, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: `${marker}:SIGKILL` });
}

async function restore(): Promise<void> {
  await rm(join(dir, 'store'), { recursive: true, force: true });
  await cp(join(dir, 'before'), join(dir, 'store'), { recursive: true, preserveTimestamps: true });
}

async function heldSchedules(): Promise<number> {
  const world = JSON.parse((await examctl(['local', 'export'], dir, env)).stdout) as {
    Schedules: { ScheduleExtId?: string }[];
  };
  return world.Schedules.filter((schedule) => schedule.ScheduleExtId?.startsWith('S-R-')).length;
}

async function restoredHistory(): Promise<void> {
  await cp(join(dir, 'store'), join(dir, 'before'), { recursive: true, preserveTimestamps: true });
  expect((await killedAt(['schedule', 'push', '--file', 'sittings.csv'], 'outcome:300')).signal).toBe('SIGKILL');
  const killed = JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout) as {
    run: string;
    items: { status: string }[];
  };
  const acknowledged = killed.items.filter((item) => item.status === 'ok').length;
  // Outcome lines go in groups of 256 (or on a timer): some are on record before the kill.
  expect(acknowledged).toBeGreaterThan(0);
  await restore();
  const first = await killedAt(['runs', 'resume'], 'outcome:50');
  expect(first.signal).toBe('SIGKILL');
  // Said once as the resume begins: the run, and how many of its acknowledged rows the store lost.
  const said = first.stderr.split('\n').filter((line) => line.includes('not in the store'));
  expect(said).toHaveLength(1);
  expect(said[0]).toContain(killed.run);
  expect(said[0]).toContain(` ${acknowledged} `);
  const second = await examctl(['--json', 'runs', 'resume'], dir, env);
  expectAllOk(second, SCHEDULES);
  expect(await heldSchedules()).toBe(SCHEDULES);
}

describe('a killed schedule push, the store restored to the copy taken before it, two resumes', () => {
  it('after an earlier night: every schedule in the store, exit 0 (D1: the kept rows were lost by the restore)', async () => {
    const night = await examctl(
      ['schedule', 'push', '--upsert', '--changed-only', '--file', join(ROOT, 'fixtures/sittings.csv')],
      dir,
      env,
    );
    expect(night.code, night.stderr).toBe(0);
    await restoredHistory();
  });

  it('with no earlier night: every schedule once, nothing "already exists" (D2)', async () => {
    await restoredHistory();
  });
});

describe('a killed schedule push resumed on the store it left (no restore)', () => {
  it('sends none of its kept rows again and says nothing of a restore', async () => {
    expect((await killedAt(['schedule', 'push', '--file', 'sittings.csv'], 'outcome:300')).signal).toBe('SIGKILL');
    const resumed = await examctl(['--json', 'runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('not in the store');
    const items = (JSON.parse(resumed.stdout) as { items: { note?: string; errors: unknown[] }[] }).items;
    expect(items.filter((item) => item.note?.startsWith('sent again') === true)).toEqual([]);
    expect(items.filter((item) => item.errors.length > 0)).toEqual([]);
    expect(await heldSchedules()).toBe(SCHEDULES);
  });
});

describe('a --changed-only night stopped, the store restored to before the night before it, resumed', () => {
  it('sends again what the earlier night lost, and the run is shown after (its journal whole)', async () => {
    const push = ['schedule', 'push', '--upsert', '--changed-only', '--file', 'sittings.csv'];
    expect((await examctl(push, dir, env)).code).toBe(0);
    await cp(join(dir, 'store'), join(dir, 'before'), { recursive: true, preserveTimestamps: true });
    // The next night retitles the even schedules; the one after, every schedule: the odd ones are then
    // unchanged since the first night, the even ones since the second, which the restore undoes.
    const retitle = async (which: (s: number) => boolean, to: string) => {
      const text = await readFile(join(dir, 'sittings.csv'), 'utf8');
      await writeFile(
        join(dir, 'sittings.csv'),
        text.replace(/^(S-R-(\d+),A-MATH-1,)[^,]*/gm, (all, head: string, s: string) =>
          which(Number(s)) ? `${head}${to} ${s}` : all,
        ),
      );
    };
    await retitle((s) => s % 2 === 0, 'Second');
    expect((await examctl(push, dir, env)).code).toBe(0);
    await retitle((s) => s % 2 === 1, 'Third');
    // Stopped at its first outcome with its unchanged rows on record (SIGTERM: the last group is written); at
    // most the in-flight limit (128) of its 200 requests go, so the resume has rows to send.
    const stopped = await examctl(push, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGTERM' });
    expect(stopped.code, stopped.stderr).toBe(130);
    await restore();
    const resumed = await examctl(['--json', 'runs', 'resume'], dir, env);
    expectAllOk(resumed, SCHEDULES);
    const world = JSON.parse((await examctl(['local', 'export'], dir, env)).stdout) as {
      Schedules: { ScheduleExtId?: string; Title: string }[];
    };
    const titles = world.Schedules.filter((one) => one.ScheduleExtId?.startsWith('S-R-')).map((one) => one.Title);
    expect(titles.filter((title) => /^(Second|Third) /.test(title))).toHaveLength(SCHEDULES);
    const shown = await examctl(['runs', 'show', 'last'], dir, env);
    expect(shown.code, shown.stderr).toBe(0);
  });
});

describe('a finished schedule push, the store restored to the copy taken before it, runs resume <id>', () => {
  it('sends again exactly what the store lost (said once, with the run and the count), then is finished', async () => {
    // The first night stays in the store; the second night's half (its new schedules) is what the restore undoes.
    const push = ['schedule', 'push', '--upsert', '--changed-only', '--file', 'sittings.csv'];
    writeSittings(dir, SCHEDULES / 2);
    expect((await examctl(push, dir, env)).code).toBe(0);
    await cp(join(dir, 'store'), join(dir, 'before'), { recursive: true, preserveTimestamps: true });
    writeSittings(dir, SCHEDULES);
    const night = await examctl(push, dir, env);
    expect(night.code, night.stderr).toBe(0);
    const run = (JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout) as { run: string })
      .run;
    await restore();
    expect(await heldSchedules()).toBe(SCHEDULES / 2);
    const resumed = await examctl(['--json', 'runs', 'resume', run], dir, env);
    expectAllOk(resumed, SCHEDULES);
    const said = resumed.stderr.split('\n').filter((line) => line.includes('not in the store'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(run);
    expect(said[0]).toContain(` ${SCHEDULES / 2} `);
    const items = (JSON.parse(resumed.stdout) as { items: { note?: string }[] }).items;
    expect(items.filter((item) => item.note?.startsWith('sent again') === true)).toHaveLength(SCHEDULES / 2);
    expect(await heldSchedules()).toBe(SCHEDULES);
    // Nothing lost now: the run is finished, its report given as runs show gives it.
    const again = await examctl(['runs', 'resume', run], dir, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`run ${run} is finished`);
  });

  it('on the store it left: finished, nothing sent', async () => {
    expect((await examctl(['schedule', 'push', '--file', 'sittings.csv'], dir, env)).code).toBe(0);
    const again = await examctl(['runs', 'resume', 'last'], dir, env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('is finished');
    expect(again.stderr).not.toContain('not in the store');
  });
});
