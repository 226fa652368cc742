import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, parseReport, type Report } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// docs/interpretations.md, "One file, one id": both records of an id the same file gives twice fail
// locally, each naming the other's line, in the dry run and the real run, and neither is sent
// (issues 23 and 59). Against the demo world, a fresh store per test.

const failures = (report: Report): [number, string | null, string | null, string][] =>
  report.items
    .filter((i) => i.status !== 'ok')
    .map((i) => [i.source.line, i.id, i.errors[0]?.field ?? null, i.errors[0]?.message ?? '']);

describe('the same id twice in one file', () => {
  it('user sync: both rows of an ExternalId fail in the dry run and the real run (case ignored), each naming the other line; none is saved', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'users.csv');
      await writeFile(
        file,
        'ExternalId,FirstName,LastName,Email,Role\n' +
          'u-1,Ann,Lee,u1@students.example.test,Candidate\n' +
          'u-2,Ben,Okafor,u2@students.example.test,Candidate\n' +
          'u-1,Annie,Lee,u1b@students.example.test,Candidate\n' +
          'U-1,Anna,Lee,u1c@students.example.test,Candidate\n',
      );
      const store = join(dir, 'store');
      const args = ['user', 'sync', '--file', file, '--json', '--store', store, '--concurrency', '8'];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        const report = parseReport(run);
        expect(report.summary).toMatchObject({ total: 4, ok: 1, failed: 3 });
        expect(failures(report)).toEqual([
          [2, 'u-1', 'ExternalId', 'ExternalId u-1 is also on line 4; an id appears once in one file'],
          [4, 'u-1', 'ExternalId', 'ExternalId u-1 is also on line 2; an id appears once in one file'],
          [5, 'U-1', 'ExternalId', 'ExternalId U-1 is also on line 2 (as u-1); an id appears once in one file'],
        ]);
      }
      const world = JSON.parse((await examctl(['local', 'export', '--store', store], dir)).stdout) as {
        Users: { ExternalId: string; FirstName: string }[];
      };
      expect(world.Users.filter((u) => u.ExternalId.toLowerCase() === 'u-1').map((u) => u.FirstName)).toEqual([]);
    });
  });

  it('collection add: both rows of an ExternalId fail in the dry run and the real run, each naming the other line', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'collections.ndjson');
      const line = (id: string, title: string): string =>
        JSON.stringify({ ExternalId: id, Title: title, Owner: 'scheduler' });
      await writeFile(file, [line('phys1', 'One'), line('phys2', 'Other'), line('phys1', 'Again')].join('\n') + '\n');
      const args = ['collection', 'add', '--file', file, '--json', '--store', join(dir, 'store')];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        expect(failures(parseReport(run))).toEqual([
          [1, 'phys1', 'ExternalId', 'ExternalId phys1 is also on line 3; an id appears once in one file'],
          [3, 'phys1', 'ExternalId', 'ExternalId phys1 is also on line 1; an id appears once in one file'],
        ]);
      }
    });
  });

  it('schedule push: a candidate twice in one schedule fails that schedule on both rows, each naming the other line; the same candidate in another schedule is fine', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'sittings.csv');
      await writeFile(
        file,
        'ScheduleExtId,AssessmentExtId,Title,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n' +
          'S-DUP-1,A-MATH-1,One,2026-12-21T09:00:00Z,H-CORPUS,Corpus group,cand-1,Ann,Lee,c1@students.example.test\n' +
          'S-DUP-2,A-MATH-1,Two,2026-12-22T09:00:00Z,H-CORPUS,Corpus group,cand-1,Ann,Lee,c1@students.example.test\n' +
          'S-DUP-1,,,,,,cand-2,Ben,Okafor,c2@students.example.test\n' +
          'S-DUP-1,,,,,,cand-1,Ann,Lee,c1@students.example.test\n',
      );
      const args = ['schedule', 'push', '--file', file, '--json', '--store', join(dir, 'store')];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        const report = parseReport(run);
        expect(report.items.map((i) => [i.id, i.status])).toEqual([
          ['S-DUP-1', 'failed'],
          ['S-DUP-2', 'ok'],
        ]);
        expect(report.items[0]!.errors.map((e) => [e.line, e.field, e.message])).toEqual([
          [2, 'CandidateExtId', 'CandidateExtId cand-1 is also on line 5; an id appears once in one file'],
          [5, 'CandidateExtId', 'CandidateExtId cand-1 is also on line 2; an id appears once in one file'],
        ]);
      }
    });
  });

  it('invigilators remove: both rows of an id fail locally (case ignored), each naming the other line; the others are removed', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'ids.txt');
      await writeFile(file, 'inv-1\ninv-2\nINV-1\n');
      const args = ['invigilators', 'remove', 'S-FUTURE', '--file', file, '--json', '--store', join(dir, 'store')];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        const report = parseReport(run);
        expect(report.items.map((i) => [i.source.line, i.id, i.status])).toEqual([
          [1, 'inv-1', 'failed'],
          [2, 'inv-2', 'ok'],
          [3, 'INV-1', 'failed'],
        ]);
        expect(failures(report)).toEqual([
          [1, 'inv-1', 'UserExtId', 'UserExtId inv-1 is also on line 3; an id appears once in one file'],
          [3, 'INV-1', 'UserExtId', 'UserExtId INV-1 is also on line 1 (as inv-1); an id appears once in one file'],
        ]);
      }
    });
  });
});
