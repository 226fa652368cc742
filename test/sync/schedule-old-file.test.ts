import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemLine, expectCoded } from '../support/coded-message.js';
import { examctlStep } from '../support/in-process.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * Trial 5, f08: `schedule push --upsert --changed-only` of night 1's very file after night 2
 * sent it again, putting back night 1's times, exit 0 without a word. It is refused as user
 * sync refuses it (docs/sync.md, "Stale input"; src/sync/replayed-file.ts), unless --allow-old-file.
 */

const HEADER =
  'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email';
const night = (hour: 10 | 11): string =>
  `${HEADER}\n${[0, 1].map((s) => `SW-${s},A-MATH-1,Sit ${s},2027-03-01T${hour}:00:00Z,2027-03-01T${hour + 2}:00:00Z,GW-${s},G,cw-${s},F,L,cw${s}@ex.test`).join('\n')}\n`;

/** SW-0's start on the store. */
const startOf = async (dir: string): Promise<string | undefined> => {
  expect((await examctlStep(['--store', 'st', 'local', 'export', '--out', 'w.json'], dir)).code).toBe(0);
  const world = JSON.parse(await readFile(join(dir, 'w.json'), 'utf8')) as {
    Schedules: { ScheduleExtId: string; StartDateTime: string }[];
  };
  return world.Schedules.find((s) => s.ScheduleExtId === 'SW-0')?.StartDateTime;
};

describe("schedule push --changed-only of an old night's file", () => {
  it('is refused (exit 2, nothing sent) after a later night read another file; --allow-old-file sends it; a plain push is not judged', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'night1.csv'), night(10));
      await writeFile(join(dir, 'night2.csv'), night(11));
      const push = (file: string, ...more: string[]) =>
        examctlStep(['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--upsert', ...more], dir);
      for (const file of ['night1.csv', 'night2.csv']) {
        const sent = await push(file, '--changed-only');
        expect(sent.code, sent.stderr).toBe(0);
      }
      const old = await push('night1.csv', '--changed-only');
      expect(old.code).toBe(2);
      expectCoded(old.stderr, 'E2502', '--allow-old-file');
      // Its own words (trial 6, f14): what a push of the old file would undo, not user sync's leavers.
      // Its own facts (trial 6, f14): what a push of the old file would undo, not user sync's leavers.
      expectCoded(old.stderr, 'E2502', "sittings' times and candidates");
      expect(old.stderr).not.toContain('leaver');
      const start = () => startOf(dir);
      expect(await start()).toMatch(/^2027-03-01T11:00/);
      expect((await push('night1.csv', '--changed-only', '--allow-old-file')).code).toBe(0);
      expect(await start()).toMatch(/^2027-03-01T10:00/);
      // Without --changed-only the rows are sent as given, as user sync's plain send is; its file is
      // recorded: night 1's file after it is old again (trial20 f02).
      expect((await push('night2.csv')).code).toBe(0);
      expect((await push('night1.csv', '--changed-only')).code).toBe(2);
      expect(await start()).toMatch(/^2027-03-01T11:00/);
    }));

  it("a night's report fed back after a later night moved its sitting fails that row unsent (exit 1, trial21 f01); --allow-old-file sends it", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'night1.csv'), night(10));
      await writeFile(
        join(dir, 'night2.csv'),
        night(11).replace(
          /SW-1,A-MATH-1,Sit 1,2027-03-01T11:00:00Z,2027-03-01T13:00:00Z/,
          'SW-1,A-MATH-1,Sit 1,2027-03-01T10:00:00Z,2027-03-01T12:00:00Z',
        ),
      );
      const push = (file: string, ...more: string[]) =>
        examctlStep(['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--upsert', ...more], dir);
      expect((await push('night1.csv', '--changed-only', '--report', 'n1.csv')).code).toBe(0);
      const night2 = await push('night2.csv', '--changed-only');
      expect(night2.code, night2.stderr).toBe(0);
      const n2 = /run (\S+) \(examctl runs show/.exec(night2.stderr)![1]!;
      const retry = await push('n1.csv', '--report', 'r.csv');
      expect(retry.code, retry.stderr).toBe(1);
      const line = itemLine(retry.stderr, 'SW-0', 'ScheduleExtId');
      expect(line).toContain('not sent');
      expect(line).toContain(n2);
      // SW-1, as night 2 sent it, goes.
      expect(retry.stderr).not.toContain('[SW-1]');
      const start = () => startOf(dir);
      expect(await start()).toMatch(/^2027-03-01T11:00/);
      expect((await push('n1.csv', '--allow-old-file')).code).toBe(0);
      expect(await start()).toMatch(/^2027-03-01T10:00/);
    }));

  it("a night's sittings report fed back after a later user sync changed a candidate fails that row unsent (trial22 f04); --allow-old-file sends it", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'night1.csv'), night(10));
      await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Email\ncw-1,F,L,new1@ex.test\n');
      const push = (file: string, ...more: string[]) =>
        examctlStep(['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--upsert', ...more], dir);
      expect((await push('night1.csv', '--changed-only', '--report', 'n1.csv')).code).toBe(0);
      const users = await examctlStep(
        ['--store', 'st', '--yes', 'user', 'sync', '--file', 'users.csv', '--changed-only'],
        dir,
      );
      expect(users.code, users.stderr).toBe(0);
      const u = /run (\S+) \(examctl runs show/.exec(users.stderr)![1]!;
      const emailOf = async (): Promise<string | undefined> => {
        expect((await examctlStep(['--store', 'st', 'local', 'export', '--out', 'w.json'], dir)).code).toBe(0);
        const world = JSON.parse(await readFile(join(dir, 'w.json'), 'utf8')) as {
          Users: { ExternalId: string; Email: string }[];
        };
        return world.Users.find((user) => user.ExternalId === 'cw-1')?.Email;
      };
      const retry = await push('n1.csv', '--report', 'r.csv');
      expect(retry.code, retry.stderr).toBe(1);
      const line = itemLine(retry.stderr, 'SW-1', 'Candidates[0].CandidateExtId');
      expect(line).toContain('not sent');
      expect(line).toContain(u);
      expect(line).toContain('cw-1');
      // SW-0's candidate no later run touched: it goes.
      expect(retry.stderr).not.toContain('[SW-0]');
      expect(await emailOf()).toBe('new1@ex.test');
      expect((await push('n1.csv', '--allow-old-file')).code).toBe(0);
      expect(await emailOf()).toBe('cw1@ex.test');
    }));

  it("a later user sync that sent a candidate's user the same names and email (a label changed, the same fix retried, the email in another case: trial28 f05) does not hold the sittings row back (trial27 f01)", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'night1.csv'), night(10));
      await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Email,Labels\ncw-1,F,L,CW1@Ex.Test,Y11\n');
      const push = (file: string, ...more: string[]) =>
        examctlStep(['--store', 'st', '--yes', 'schedule', 'push', '--file', file, '--upsert', ...more], dir);
      expect((await push('night1.csv', '--changed-only', '--report', 'n1.csv')).code).toBe(0);
      expect((await examctlStep(['--store', 'st', '--yes', 'user', 'sync', '--file', 'users.csv'], dir)).code).toBe(0);
      const retry = await push('n1.csv');
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.stderr).not.toContain('not sent');
    }));
});
