import { readdir, readFile, writeFile } from 'node:fs/promises';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded, itemLine } from '../support/coded-message.js';
import { examctlStep } from '../support/in-process.js';
import { withTempDir } from '../support/temp-dir.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';
import { lineWith } from '../support/facts.js';

/**
 * trial26 f01, f07, f04 (docs/sync.md, "Fields left out", "Stale input", "Withdrawn candidates").
 */

const HEADER =
  'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
const row = (s: string, c: string): string =>
  `${s},A-MATH-1,Sit,2027-03-01T10:00:00Z,2027-03-01T12:00:00Z,G-${s},G,${c},F,L,${c}@ex.test`;
const push = (dir: string, file: string, ...more: string[]) =>
  examctlStep(
    ['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--upsert', '--changed-only', ...more],
    dir,
  );

/** S-0's PIN and LockExamOnConnectionLoss on the store. */
const fieldsOf = async (dir: string): Promise<unknown[]> => {
  expect((await examctlStep(['--store', 'st', 'local', 'export', '--out', 'w.json'], dir)).code).toBe(0);
  const world = JSON.parse(await readFile(join(dir, 'w.json'), 'utf8')) as { Schedules: Record<string, unknown>[] };
  const s = world.Schedules.find((schedule) => schedule.ScheduleExtId === 'S-0');
  return [s?.PIN, s?.LockExamOnConnectionLoss];
};

/** Every schedules memory under `dir` as an examctl older than the fields' record wrote it: its entries without `s`. */
async function asOlderExamctlWroteIt(dir: string): Promise<void> {
  for (const name of await readdir(dir, { recursive: true })) {
    if (!name.endsWith('schedules.ndjson')) continue;
    const lines = (await readFile(join(dir, name), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { b: Record<string, unknown> }).b);
    await writeFile(
      join(dir, name),
      lines.map(({ s: _s, ...body }) => encodeChecksummedLine(JSON.stringify(body))).join(''),
    );
  }
}

describe('schedule push --upsert: fields an earlier run set', () => {
  it("an older examctl's entry (no fields) learns them on an unchanged night, so a night that lost its PIN fails unsent (trial28 f01)", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'full.csv'), `${HEADER}\n${row('S-0', 'c-1')}\n`);
      expect((await push(dir, 'full.csv', '--pin', '4821')).code).toBe(0);
      await asOlderExamctlWroteIt(dir);
      const unchanged = await push(dir, 'full.csv', '--pin', '4821');
      expect(unchanged.stderr).toContain('1 unchanged');
      const lost = await push(dir, 'full.csv');
      expect(lost.code, lost.stderr).toBe(1);
      expect(itemLine(lost.stderr, 'S-0', 'Schedule.PIN')).toContain(' 9023 ');
      expect((await fieldsOf(dir))[0]).toBe('4821');
    }));

  it('a run without the PIN fails unsent (exit 1); a field left out is said; --clear-pin clears the PIN', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'full.csv'), `${HEADER},LockExamOnConnectionLoss\n${row('S-0', 'c-1')},true\n`);
      await writeFile(join(dir, 'late.csv'), `${HEADER}\n${row('S-0', 'c-2')}\n`);
      expect((await push(dir, 'full.csv', '--pin', '4821')).code).toBe(0);
      const late = await push(dir, 'late.csv', '--report', 'late.json');
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(
        /\[S-0\] Schedule\.PIN 9023 not sent: the upsert would clear PIN, \S+ \(set by run \S+\), opening the sitting/,
      );
      const [refused] = JSON.parse(await readFile(join(dir, 'late.json'), 'utf8')).items;
      expect(refused).toMatchObject({ id: 'S-0', status: 'failed', errors: [{ field: 'Schedule.PIN', code: 9023 }] });
      expect(await fieldsOf(dir)).toEqual(['4821', true]);
      const given = await push(dir, 'late.csv', '--pin', '4821', '--report', 'r.json');
      expect(given.code, given.stderr).toBe(0);
      expect(lineWith(given.stderr, 'S-0: ', 'LockExamOnConnectionLoss', '(set by run ')).toBeTruthy();
      // The summary counts each note for what it says (late.csv also leaves out c-1).
      expect(lineWith(given.stderr, '1 with candidates left registered', '1 with fields cleared')).toBeTruthy();
      expect(await readFile(join(dir, 'r.json'), 'utf8')).toContain(
        'left out: the upsert clears LockExamOnConnectionLoss',
      );
      expect(await fieldsOf(dir)).toEqual(['4821', undefined]);
      expect((await push(dir, 'full.csv', '--pin', '4821', '--allow-old-file')).code).toBe(0);
      const cleared = await push(dir, 'late.csv', '--clear-pin', '--allow-old-file');
      expect(cleared.code, cleared.stderr).toBe(0);
      expect(lineWith(cleared.stderr, 'S-0: ', 'PIN, LockExamOnConnectionLoss', '(set by run ')).toBeTruthy();
      expect(await fieldsOf(dir)).toEqual([undefined, undefined]);
    }));

  it('--clear-pin beats EXAMCTL_PIN (said); beside --pin, --pin-file or a --schedule file with a PIN: exit 2, nothing sent (trial40 F02)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'full.csv'), `${HEADER}\n${row('S-0', 'c-1')}\n`);
      await writeFile(join(dir, 'p.txt'), '5555\n', { mode: 0o600 });
      expect((await push(dir, 'full.csv', '--pin', '1111')).code).toBe(0);
      for (const typed of [
        ['--pin', '5555'],
        ['--pin-file', 'p.txt'],
      ]) {
        const both = await push(dir, 'full.csv', '--clear-pin', ...typed);
        expect(both.code).toBe(2);
        expectCoded(both.stderr, 'E2000', `--clear-pin and ${typed[0]}`);
      }
      expect((await fieldsOf(dir))[0]).toBe('1111');
      const cleared = await examctlStep(
        ['--store', 'st', '--yes', 'schedule', 'push', '--file', 'full.csv', '--upsert', '--clear-pin'],
        dir,
        { EXAMCTL_PIN: '2222' },
      );
      expect(cleared.code, cleared.stderr).toBe(0);
      expect(lineWith(cleared.stderr, 'EXAMCTL_PIN', '--clear-pin')).toBeTruthy();
      expect(lineWith(cleared.stderr, 'S-0: ', 'clears PIN')).toBeTruthy();
      expect((await fieldsOf(dir))[0]).toBeUndefined();
    }));

  it('a PIN in the --schedule file named beats EXAMCTL_PIN (said); a typed --pin beats the file, as every flag does (trial40 F02)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,F,L,c-1@ex.test\n');
      await writeFile(
        join(dir, 'sch.json'),
        JSON.stringify({
          ScheduleExtId: 'S-0',
          AssessmentExtId: 'A-MATH-1',
          StartDateTime: '2027-03-01T10:00:00Z',
          GroupExtId: 'G',
          GroupName: 'G',
          PIN: '1111',
        }),
      );
      const withFile = (env: Record<string, string>, ...more: string[]) =>
        examctlStep(
          [
            '--store',
            'st',
            '--yes',
            'schedule',
            'push',
            '--file',
            'c.csv',
            '--schedule',
            'sch.json',
            '--upsert',
            ...more,
          ],
          dir,
          env,
        );
      const fromFile = await withFile({ EXAMCTL_PIN: '3333' });
      expect(fromFile.code, fromFile.stderr).toBe(0);
      expect(fromFile.stderr).toContain("EXAMCTL_PIN is set: not used (--schedule sch.json's PIN)\n");
      expect((await fieldsOf(dir))[0]).toBe('1111');
      const typed = await withFile({ EXAMCTL_PIN: '3333' }, '--pin', '7777');
      expect(typed.code, typed.stderr).toBe(0);
      expect(typed.stderr).not.toContain('EXAMCTL_PIN');
      expect((await fieldsOf(dir))[0]).toBe('7777');
      const both = await withFile({}, '--clear-pin');
      expect(both.code).toBe(2);
      expect(both.stderr).toContain("--clear-pin and --schedule sch.json's PIN: give one of them");
      expect((await fieldsOf(dir))[0]).toBe('7777');
    }));

  it('a --schedule file\'s PIN null or "" gives none: EXAMCTL_PIN is sent, into withheld report cells too; --clear-pin beside it is no clash (trial41 F04)', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'r.csv'),
        'CandidateExtId,FirstName,LastName,Email,PIN\nc-1,F,L,c-1@ex.test,withheld\n',
      );
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,F,L,c-1@ex.test\n');
      const withFile = (file: string, env: Record<string, string>, ...more: string[]) =>
        examctlStep(
          ['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--schedule', 'sch.json', '--upsert', ...more],
          dir,
          env,
        );
      for (const [PIN, env] of [
        [null, '3333'],
        ['', '4444'],
      ] as const) {
        await writeFile(
          join(dir, 'sch.json'),
          JSON.stringify({
            ScheduleExtId: 'S-0',
            AssessmentExtId: 'A-MATH-1',
            StartDateTime: '2027-03-01T10:00:00Z',
            GroupExtId: 'G',
            GroupName: 'G',
            PIN,
          }),
        );
        for (const file of ['c.csv', 'r.csv']) {
          const night = await withFile(file, { EXAMCTL_PIN: file === 'c.csv' ? env : `${env.slice(1)}9` });
          expect(night.code, night.stderr).toBe(0);
          expect(night.stderr).not.toContain('EXAMCTL_PIN');
          expect((await fieldsOf(dir))[0]).toBe(file === 'c.csv' ? env : `${env.slice(1)}9`);
        }
        const none = await withFile('r.csv', {});
        expect(none.code, none.stderr).toBe(2);
        expect(none.stderr).toContain('PIN holds "withheld" on line 2');
        const cleared = await withFile('c.csv', {}, '--clear-pin');
        expect(cleared.code, cleared.stderr).toBe(0);
        expect((await fieldsOf(dir))[0]).toBeUndefined();
      }
    }));

  it('two sittings files on one target: the unchanged one goes; an old file whose schedule a later run sent is refused', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'maths.csv'), `${HEADER}\n${row('S-0', 'c-1')}\n`);
      await writeFile(join(dir, 'physics.csv'), `${HEADER}\n${row('S-1', 'c-2')}\n`);
      await writeFile(join(dir, 'physics2.csv'), `${HEADER}\n${row('S-1', 'c-3')}\n`);
      for (const file of ['maths.csv', 'physics.csv', 'maths.csv', 'physics.csv', 'physics2.csv']) {
        const night = await push(dir, file);
        expect(night.code, `${file}: ${night.stderr}`).toBe(0);
      }
      const old = await push(dir, 'physics.csv');
      expect(old.code).toBe(2);
      expect(old.stderr).toContain("is it an old night's file run again?");
    }));

  it('runs show says a withdrawn candidate after its summary', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'n1.csv'), `${HEADER}\n${row('S-0', 'c-1')}\n${row('S-0', 'c-2')}\n`);
      await writeFile(join(dir, 'n2.csv'), `${HEADER}\n${row('S-0', 'c-1')}\n`);
      expect((await push(dir, 'n1.csv')).code).toBe(0);
      const night2 = await push(dir, 'n2.csv');
      expect(night2.code, night2.stderr).toBe(0);
      const run = /run (\S+) \(examctl runs show/.exec(night2.stderr)![1]!;
      const shown = await examctlStep(['runs', 'show', run], dir);
      expect(shown.stdout + shown.stderr).toContain('1 with candidates left registered');
    }));
});

describe('synced adopt-schedules on a remote target', () => {
  it("takes the PIN as schedule push does: the --schedule file's beats EXAMCTL_PIN, so the next night is unchanged (trial40 F02)", () =>
    withTempDir(async (dir) => {
      const service = await startFaultServer();
      service.fallback = () => okEnvelope('S-0');
      try {
        await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,F,L,c-1@ex.test\n');
        const remote = ['--target', 'remote', '--base-url', service.url, '--allow-insecure-http', '--yes'];
        const env = { EXAMCTL_TOKEN: 'test-token', EXAMCTL_PIN: '3333' };
        // A PIN null or "" gives none (trial41 F04): EXAMCTL_PIN, on both.
        for (const PIN of ['1111', null, '']) {
          await writeFile(
            join(dir, 'sch.json'),
            JSON.stringify({
              ScheduleExtId: 'S-0',
              AssessmentExtId: 'A-MATH-1',
              StartDateTime: '2027-03-01T10:00:00Z',
              GroupExtId: 'G',
              GroupName: 'G',
              PIN,
            }),
          );
          const adopted = await examctlStep(
            [...remote, 'synced', 'adopt-schedules', '--file', 'c.csv', '--schedule', 'sch.json', '--upsert'],
            dir,
            env,
          );
          expect(adopted.code, adopted.stderr).toBe(0);
          const night = await examctlStep(
            [...remote, 'schedule', 'push', '--file', 'c.csv', '--schedule', 'sch.json', '--upsert', '--changed-only'],
            dir,
            env,
          );
          expect(night.code, night.stderr).toBe(0);
          expect(night.stderr).toContain('1 ok: 1 unchanged');
        }
      } finally {
        await service.close();
      }
    }));
});
