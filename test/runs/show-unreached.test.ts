import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintInput } from '../../src/runs/resume-plan.js';
import { RunJournal, type NewRunHeader } from '../../src/runs/run-journal.js';
import { type ItemRef } from '../../src/runs/journal-lines.js';
import { examctl } from '../support/faulty-serve.js';
import { tempRunsDir } from './helpers.js';
import { summaryOf } from '../support/facts.js';

/**
 * `runs show` of a run that stopped part-way lists every input unit exactly once: those the run
 * never reached as skipped "not sent", read again from the unchanged input with the command's
 * own grouping; when the input changed, is gone, or was stdin, it says how many are unlisted and why.
 */

let runsDir: string;
let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: runsDir, cleanup } = tempRunsDir());
  dir = join(runsDir, '..');
});
afterEach(() => cleanup());

interface Shown {
  run: string;
  unlisted?: { count: number | null; reason: string };
  summary: { total: number; ok: number; partial: number; failed: number; skipped: number };
  items: {
    source: { file: string; line: number };
    id: string | null;
    status: string;
    errors: { field: string; code: number | null; message: string }[];
  }[];
}

const USERS = 10;
function writeUsers(): void {
  const rows = Array.from({ length: USERS }, (_, i) => `u-${i},Ann,Lee,u-${i}@example.test,Candidate`);
  writeFileSync(join(dir, 'users.csv'), `ExternalId,FirstName,LastName,Email,Role\n${rows.join('\n')}\n`);
}

const userRef = (n: number): ItemRef => ({ n, source: { file: 'users.csv', line: n + 2 }, id: `u-${n}` });

/** A user sync killed after sending 4 users: 2 ok, 1 refused by the service, 1 in flight. */
async function killedUserSync(file = 'users.csv'): Promise<string> {
  const header: NewRunHeader = {
    command: 'user sync',
    options: { file, target: 'local', store: join(dir, 'store'), cwd: dir },
    target: { kind: 'local', store: join(dir, 'store') },
    input: file === '-' ? null : await fingerprintInput(join(dir, file)),
    units: USERS,
  };
  const journal = await RunJournal.start(runsDir, header);
  await journal.sent([0, 1, 2, 3].map(userRef));
  journal.outcome({ ...userRef(0), status: 'ok', errors: [], action: 'created', transient: false });
  journal.outcome({ ...userRef(1), status: 'ok', errors: [], action: 'created', transient: false });
  journal.outcome({
    ...userRef(2),
    status: 'failed',
    errors: [{ field: 'Role', code: 214, message: 'no such role' }],
    transient: false,
  });
  await journal.close();
  return journal.id;
}

async function show(id: string, ...extra: string[]): Promise<{ code: number; shown: Shown; stderr: string }> {
  const run = await examctl(dir, ['--json', '--runs-dir', runsDir, 'runs', 'show', id, ...extra]);
  return { code: run.code, shown: JSON.parse(run.stdout) as Shown, stderr: run.stderr };
}

describe('runs show of an interrupted run whose input is unchanged', () => {
  it('lists every input row once: answered as recorded, in flight as lost, the rest as not sent', async () => {
    writeUsers();
    const id = await killedUserSync();
    const { code, shown } = await show(id);
    expect(code).toBe(1);
    expect(shown.unlisted).toBeUndefined();
    expect(shown.items.map((item) => item.source.line)).toEqual(Array.from({ length: USERS }, (_, i) => i + 2));
    expect(shown.items.map((item) => item.id)).toEqual(Array.from({ length: USERS }, (_, i) => `u-${i}`));
    expect(shown.items.map((item) => item.status)).toEqual([
      'ok',
      'ok',
      'failed',
      'skipped',
      ...Array(USERS - 4).fill('skipped'),
    ]);
    expect(shown.items[3]!.errors[0]!.code).toBe(9026);
    for (const item of shown.items.slice(4))
      expect(item.errors[0]!.message).toBe(`not sent: the run stopped before it (examctl runs resume ${id} sends it)`);
    expect(shown.summary).toMatchObject({
      total: USERS,
      ok: 2,
      partial: 0,
      failed: 1,
      skipped: USERS - 3,
      created: 2,
      updated: 0,
    });
  });

  it('a row the local checks refuse, never reached: said refused again by a resume (its problems), not sent by it', async () => {
    writeUsers();
    const file = join(dir, 'users.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('u-7@example.test', 'not-an-email'));
    const id = await killedUserSync();
    const { shown } = await show(id);
    const refused = shown.items[7]!;
    expect(refused.status).toBe('skipped');
    expect(refused.errors[0]!.message).not.toMatch(/sends it/);
    expect(refused.errors[0]!.message).toContain(`examctl runs resume ${id} refuses it`);
    expect(refused.errors.slice(1).map((error) => error.field)).toEqual(['Email']);
    expect(shown.items[8]!.errors[0]!.message).toMatch(/sends it\)$/);
  });

  it('--report f.csv holds the same items with the input cells back, ready for --only-failed', async () => {
    writeUsers();
    const id = await killedUserSync();
    await show(id, '--report', join(dir, 'shown.csv'));
    const lines = readFileSync(join(dir, 'shown.csv'), 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^ExternalId,FirstName,LastName,Email,Role,status,error_codes,error_messages/);
    expect(lines).toHaveLength(USERS + 1);
    expect(lines[1]).toMatch(/^u-0,Ann,Lee,u-0@example\.test,Candidate,ok,/);
    expect(lines[3]).toMatch(/^u-2,.*,failed,214,/);
    expect(lines[USERS]).toMatch(/^u-9,Ann,Lee,u-9@example\.test,Candidate,skipped,9025,/);
  });

  it('schedule push: one item per schedule request, grouped as the command groups the sittings rows', async () => {
    const head =
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
    const row = (s: number, c: number): string =>
      `S-${s},A-MATH-1,T ${s},2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North,stu-${s}-${c},Ann,Lee,stu-${s}-${c}@example.test`;
    // Rows of one schedule need not be together: S-0's second candidate comes last.
    writeFileSync(
      join(dir, 'sittings.csv'),
      `${head}\n${[row(0, 0), row(1, 0), row(1, 1), row(2, 0), row(0, 1)].join('\n')}\n`,
    );
    const header: NewRunHeader = {
      command: 'schedule push',
      options: { file: 'sittings.csv', target: 'local', store: join(dir, 'store'), cwd: dir },
      target: { kind: 'local', store: join(dir, 'store') },
      input: await fingerprintInput(join(dir, 'sittings.csv')),
    };
    const journal = await RunJournal.start(runsDir, header);
    const first: ItemRef = { n: 0, source: { file: 'sittings.csv', line: 2 }, id: 'S-0' };
    await journal.sent([first]);
    journal.outcome({ ...first, status: 'ok', errors: [], action: 'created', transient: false });
    await journal.close();
    const { shown } = await show(journal.id);
    expect(shown.items.map((item) => [item.id, item.source.line, item.status])).toEqual([
      ['S-0', 2, 'ok'],
      ['S-1', 3, 'skipped'],
      ['S-2', 5, 'skipped'],
    ]);
    expect(shown.summary).toMatchObject({ total: 3, ok: 1, skipped: 2 });
    // runs list has only the journal: its count is a floor, and says so (QA F5: it printed 1 of 3 as the total).
    const listed = await examctl(dir, ['--runs-dir', runsDir, 'runs', 'list']);
    expect(summaryOf(listed.stdout)).toMatchObject({
      atLeast: true,
      total: 1,
      ok: 1,
      partial: 0,
      failed: 0,
      skipped: 0,
    });
    const json = JSON.parse((await examctl(dir, ['--json', '--runs-dir', runsDir, 'runs', 'list'])).stdout) as {
      runs: { totalKnown?: boolean; summary: { total: number } }[];
    };
    expect(json.runs[0]).toMatchObject({ totalKnown: false, summary: { total: 1 } });
    // With the input changed, runs show cannot count the rest either: it says so, not "counted as skipped".
    appendFileSync(
      join(dir, 'sittings.csv'),
      'S-9,A-MATH-1,T 9,2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North,stu-9,Ann,Lee,stu-9@example.test\n',
    );
    const changed = await show(journal.id);
    expect(changed.shown.summary).toMatchObject({ total: 1, ok: 1 });
    expect(changed.stderr).toContain(
      `run ${journal.id}: the items it never reached are neither listed nor counted (how many there were is not on record): its input file`,
    );
  });
});

describe('runs show of an interrupted collection add --file', () => {
  it('lists the collections it never reached: the options the run kept (--report, --sync-dir, --existing) are no fields', async () => {
    writeFileSync(
      join(dir, 'collections.json'),
      JSON.stringify([1, 2, 3].map((i) => ({ ExternalId: `col${i}`, Title: `Collection ${i}` }))),
    );
    const header: NewRunHeader = {
      command: 'collection add',
      options: {
        file: 'collections.json',
        report: join(dir, 'run.csv'),
        syncDir: join(dir, 'synced'),
        existing: 'ok',
        yes: true,
        target: 'local',
        store: join(dir, 'store'),
        cwd: dir,
      },
      target: { kind: 'local', store: join(dir, 'store') },
      input: await fingerprintInput(join(dir, 'collections.json')),
      units: 3,
    };
    const journal = await RunJournal.start(runsDir, header);
    const first: ItemRef = { n: 0, source: { file: 'collections.json', line: 1, index: 0 }, id: 'col1' };
    await journal.sent([first]);
    journal.outcome({ ...first, status: 'ok', errors: [], action: 'created', transient: false });
    await journal.close();
    const { shown, stderr } = await show(journal.id);
    expect(stderr).not.toContain('do not go together');
    expect(shown.unlisted).toBeUndefined();
    expect(shown.items.map((item) => [item.id, item.status])).toEqual([
      ['col1', 'ok'],
      ['col2', 'skipped'],
      ['col3', 'skipped'],
    ]);
  });
});

describe('runs show --report <file>.xml (JUnit)', () => {
  it("stamps the run's own start, not the moment runs show ran; a killed run's time is 0", async () => {
    writeUsers();
    const id = await killedUserSync();
    const first = readFileSync(join(runsDir, id, 'journal.ndjson'), 'utf8').split('\n')[0]!;
    const startedAt = (JSON.parse(first) as { b: { startedAt: string } }).b.startedAt;
    // Written a moment later, on another second than the run's start if it were stamped now.
    const { code } = await show(id, '--report', 'shown.xml');
    expect(code).toBe(1);
    const xml = readFileSync(join(dir, 'shown.xml'), 'utf8');
    const suite = /<testsuite [^>]*>/.exec(xml)![0];
    expect(suite).toContain(`timestamp="${startedAt.slice(0, 19)}"`);
    expect(suite).toContain('time="0.000"');
  });
});

describe('runs show when the input cannot be read again', () => {
  it('a changed input: the journaled items only, the rest counted, with how many and why (JSON and stderr)', async () => {
    writeUsers();
    const id = await killedUserSync();
    appendFileSync(join(dir, 'users.csv'), 'u-new,Bo,Ng,u-new@example.test,Candidate\n');
    const { shown, stderr } = await show(id);
    expect(shown.items).toHaveLength(4);
    expect(shown.unlisted).toEqual({
      count: USERS - 4,
      reason: expect.stringMatching(/users\.csv changed since the run started/),
    });
    expect(shown.summary).toMatchObject({
      total: USERS,
      ok: 2,
      partial: 0,
      failed: 1,
      skipped: USERS - 3,
      created: 2,
      updated: 0,
    });
    expect(stderr).toContain(
      `run ${id}: 6 items it never reached are counted as skipped but not listed: its input file`,
    );
  });

  it('an input read from stdin: said so', async () => {
    const id = await killedUserSync('-');
    const { shown } = await show(id);
    expect(shown.unlisted).toEqual({ count: USERS - 4, reason: expect.stringMatching(/stdin/) });
  });

  it('a finished run reports every item from the journal, with nothing unlisted even when the input is gone', async () => {
    writeUsers();
    const header: NewRunHeader = {
      command: 'user sync',
      options: { file: 'gone.csv', cwd: dir },
      target: { kind: 'local', store: join(dir, 'store') },
      input: { path: join(dir, 'gone.csv'), size: 1, sha256: '0'.repeat(64) },
      units: 2,
    };
    const journal = await RunJournal.start(runsDir, header);
    await journal.sent([userRef(0), userRef(1)]);
    journal.outcome({ ...userRef(0), status: 'ok', errors: [], transient: false });
    journal.outcome({ ...userRef(1), status: 'ok', errors: [], transient: false });
    await journal.end('completed', { total: 2, ok: 2, partial: 0, failed: 0, skipped: 0 });
    const { code, shown } = await show(journal.id);
    expect(code).toBe(0);
    expect(shown.unlisted).toBeUndefined();
    expect(shown.summary).toMatchObject({ total: 2, ok: 2, partial: 0, failed: 0, skipped: 0 });
  });
});
