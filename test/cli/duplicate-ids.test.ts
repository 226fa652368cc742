import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, parseReport, type Report } from '../corpus/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// docs/interpretations.md, "One file, one id", in the commands the one rule (OneIdPerFile) reaches
// beyond test/corpus/one-id-per-file.test.ts: whole schedule requests, user sync without its memory's
// read (--really-new-ids), invigilator ids given as arguments and in --file. Both records fail, in
// the dry run and the real run, code 9009, and neither is sent.

const failures = (report: Report): [number, string | null, string | null, number | null, string][] =>
  report.items
    .filter((i) => i.status !== 'ok')
    .map((i) => [
      i.source.line,
      i.id,
      i.errors[0]?.field ?? null,
      i.errors[0]?.code ?? null,
      i.errors[0]?.message ?? '',
    ]);

describe('an exact duplicate id fails both records, in every command', () => {
  it('schedule push: two whole requests with one ScheduleExtId both fail, each naming the other line; neither is created', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'requests.ndjson');
      const request = (id: string, title: string): string =>
        JSON.stringify({
          Schedule: {
            ScheduleExtId: id,
            AssessmentExtId: 'A-MATH-1',
            Title: title,
            StartDateTime: '2026-12-21T09:00:00Z',
            GroupExtId: 'H-CORPUS',
            GroupName: 'Corpus group',
          },
          Candidates: [
            { CandidateExtId: 'cand-1', FirstName: 'Ann', LastName: 'Lee', Email: 'c1@students.example.test' },
          ],
        });
      await writeFile(
        file,
        [request('S-TWICE', 'One'), request('S-ONCE', 'Other'), request('S-TWICE', 'Again')].join('\n') + '\n',
      );
      const store = join(dir, 'store');
      const args = ['schedule', 'push', '--file', file, '--json', '--store', store];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        expect(failures(parseReport(run))).toEqual([
          [
            1,
            'S-TWICE',
            'Schedule.ScheduleExtId',
            9009,
            'ScheduleExtId S-TWICE is also on line 3; an id appears once in one file',
          ],
          [
            3,
            'S-TWICE',
            'Schedule.ScheduleExtId',
            9009,
            'ScheduleExtId S-TWICE is also on line 1; an id appears once in one file',
          ],
        ]);
      }
      const world = JSON.parse((await examctl(['local', 'export', '--store', store], dir)).stdout) as {
        Schedules: { ScheduleExtId: string }[];
      };
      expect(
        world.Schedules.map((s) => s.ScheduleExtId).filter((id) => id.startsWith('S-T') || id === 'S-ONCE'),
      ).toEqual(['S-ONCE']);
    });
  });

  it('user sync --really-new-ids (no read of the file for its memory): both rows still fail', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'users.csv');
      await writeFile(
        file,
        'ExternalId,FirstName,LastName,Email,Role\nd-1,Ann,Lee,d1@students.example.test,Candidate\nd-2,Ben,Okafor,d2@students.example.test,Candidate\nd-1,Annie,Lee,d1b@students.example.test,Candidate\n',
      );
      const args = ['user', 'sync', '--file', file, '--really-new-ids', '--json', '--store', join(dir, 'store')];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        expect(failures(parseReport(run))).toEqual([
          [2, 'd-1', 'ExternalId', 9009, 'ExternalId d-1 is also on line 4; an id appears once in one file'],
          [4, 'd-1', 'ExternalId', 9009, 'ExternalId d-1 is also on line 2; an id appears once in one file'],
        ]);
      }
    });
  });

  it('invigilators remove: an id given as an argument and in --file fails both, each naming the other place', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'ids.txt');
      await writeFile(file, 'inv-2\nINV-1\n');
      const args = [
        'invigilators',
        'remove',
        'S-FUTURE',
        'inv-1',
        '--file',
        file,
        '--json',
        '--store',
        join(dir, 'store'),
      ];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        const report = parseReport(run);
        expect(report.items.map((i) => [i.id, i.status])).toEqual([
          ['inv-1', 'failed'],
          ['inv-2', 'ok'],
          ['INV-1', 'failed'],
        ]);
        expect(report.items.filter((i) => i.status === 'failed').map((i) => i.errors[0]?.message)).toEqual([
          expect.stringMatching(/^UserExtId inv-1 is also on .*ids\.txt line 2; an id appears once in one file$/),
          expect.stringMatching(/^UserExtId INV-1 is also on .+ line 1 \(as inv-1\); an id appears once in one file$/),
        ]);
      }
    });
  });

  it('runs show reads a run again as it ran: both collections of an ExternalId failed', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'collections.ndjson');
      const line = (id: string, title: string): string =>
        JSON.stringify({ ExternalId: id, Title: title, Owner: 'scheduler' });
      await writeFile(file, [line('phys1', 'One'), line('phys2', 'Other'), line('phys1', 'Again')].join('\n') + '\n');
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const run = await examctl(
        ['collection', 'add', '--file', file, '--json', '--store', join(dir, 'store')],
        dir,
        env,
      );
      expect(run.code).toBe(1);
      const { run: id } = JSON.parse(run.stdout) as { run: string };
      const shown = await examctl(['--json', 'runs', 'show', id], dir, env);
      expect(shown.code, shown.stderr).toBe(1);
      const report = JSON.parse(shown.stdout) as Report;
      expect(report.items.map((i) => [i.source.line, i.status])).toEqual([
        [1, 'failed'],
        [2, 'ok'],
        [3, 'failed'],
      ]);
    });
  });
});
