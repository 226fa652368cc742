import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, inTempDir, parseCsv, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';

/** A report row's run column: the run's id. */
const RUN = expect.stringMatching(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/) as unknown as string;

// schedule push on request JSONs and a sittings CSV; invigilators remove on every id-file form.
// Everything against the demo world (a fresh store per test), clock 2026-11-21T10:00:00Z.

describe('schedule push', () => {
  it('a whole request JSON: valid in a dry run, created for real', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const args = ['schedule', 'push', '--file', corpus('schedule-request.json'), '--json', '--store', store];
      const dry = await examctl([...args, '--dry-run'], dir);
      expect(dry.code).toBe(0);
      expect(parseReport(dry).items.map((i) => [i.source.line, i.id, i.status])).toEqual([[1, 'S-CORPUS-1', 'ok']]);
      const real = await examctl(args, dir);
      expect(real.code).toBe(0);
      expect(parseReport(real).items.map((i) => [i.id, i.status, i.action])).toEqual([['S-CORPUS-1', 'ok', 'created']]);
      // The same request again: a duplicate ScheduleExtId without Upsert fails (code null).
      const again = parseReport(await examctl(args, dir));
      expect(again.items[0]!.status).toBe('failed');
      expect(again.items[0]!.errors.map((e) => [e.field, e.code])).toEqual([['Schedule.ScheduleExtId', null]]);
    });
  });

  it('an array of requests: one item each, the bad candidate named by index', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        ['schedule', 'push', '--file', corpus('schedule-requests.json'), '--json', '--store', join(dir, 'store')],
        dir,
      );
      expect(run.code).toBe(1);
      const doc = parseReport(run);
      expect(doc.items.map((i) => [i.source.line, i.id, i.status])).toEqual([
        [2, 'S-CORPUS-2', 'ok'],
        [22, 'S-CORPUS-3', 'failed'],
      ]);
      expect(doc.items[1]!.errors.map((e) => e.field)).toEqual(['Candidates[1].Email']);
      expect(run.stderr).toContain(`${corpus('schedule-requests.json')}:22 [S-CORPUS-3] Candidates[1].Email - `);
    });
  });

  it('a sittings CSV with two schedules: the disagreeing row fails its schedule only, on its own line', async () => {
    await inTempDir(async (dir) => {
      const report = join(dir, 'r.csv');
      const run = await examctl(
        [
          'schedule',
          'push',
          '--file',
          corpus('sittings-two-schedules.csv'),
          '--json',
          '--report',
          report,
          '--store',
          join(dir, 'store'),
        ],
        dir,
      );
      expect(run.code).toBe(1);
      const doc = parseReport(run);
      expect(doc.items.map((i) => [i.source.line, i.id, i.status])).toEqual([
        [2, 'S-CORPUS-4', 'ok'],
        [3, 'S-CORPUS-5', 'failed'],
      ]);
      expect(doc.items[1]!.errors.map((e) => [e.line, e.field, e.code])).toEqual([[6, 'Schedule.Title', 9010]]);
      // CSV report: every input row, with its schedule's status.
      const rows = parseCsv(await readFile(report, 'utf8'));
      const status = rows[0]!.indexOf('status');
      expect(rows.slice(1).map((r) => [r[6], r[status]])).toEqual([
        ['cand-7', 'ok'],
        ['cand-9', 'ok'],
        ['cand-10', 'ok'],
        ['cand-8', 'failed'],
        ['cand-11', 'failed'],
      ]);
      // S-CORPUS-4's three candidates (one row with empty schedule cells) are on the platform.
      const world = JSON.parse((await examctl(['local', 'export', '--store', join(dir, 'store')], dir)).stdout) as {
        Schedules: { ScheduleExtId: string; Candidates: { CandidateExtId: string }[] }[];
      };
      const s4 = world.Schedules.find((s) => s.ScheduleExtId === 'S-CORPUS-4');
      expect(s4?.Candidates.map((c) => c.CandidateExtId).sort()).toEqual(['cand-10', 'cand-7', 'cand-9']);
      expect(world.Schedules.some((s) => s.ScheduleExtId === 'S-CORPUS-5')).toBe(false);
    });
  });

  it('a users CSV given to schedule push is refused by its unknown columns (exit 2)', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        ['schedule', 'push', '--file', corpus('excel-csv-utf8.csv'), '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(2);
      expectOnlyErrorDocument(run.stdout, 2);
      expect(run.stderr).toMatch(/excel-csv-utf8\.csv:1: unknown columns: "ExternalId", "Role", "Hierarchies"/);
    });
  });
});

describe('invigilators remove --file in every accepted form (S-FUTURE has inv-1, inv-2, inv-3)', () => {
  const cases: [string, [number, string, string][]][] = [
    [
      'ids.txt',
      [
        [3, 'inv-1', 'ok'],
        [5, 'inv-2', 'ok'],
        [6, 'nobody-9', 'failed'],
      ],
    ],
    [
      'ids.csv',
      [
        [2, 'inv-1', 'ok'],
        [3, 'inv-2', 'ok'],
        [4, 'nobody-9', 'failed'],
      ],
    ],
    [
      'ids-semicolon.csv',
      [
        [2, 'inv-1', 'ok'],
        [3, 'inv-2', 'ok'],
      ],
    ],
    [
      'ids.json',
      [
        [2, 'inv-1', 'ok'],
        [3, 'inv-2', 'ok'],
        [4, 'nobody-9', 'failed'],
      ],
    ],
    [
      'ids-one-column.csv',
      [
        [1, 'inv-1', 'ok'],
        [2, 'inv-2', 'ok'],
      ],
    ],
  ];
  it.concurrent.each(cases)('%s', async (file, expected) => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const run = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', corpus(file), '--json', '--store', store],
        dir,
      );
      const doc = parseReport(run);
      expect(doc.items.map((i) => [i.source.line, i.id, i.status])).toEqual(expected);
      // A 319 is failed: nothing of that id's item was done (docs/interpretations.md, "Invigilators").
      const failed = doc.items.filter((i) => i.status === 'failed');
      for (const item of failed) expect(item.errors.map((e) => e.code)).toEqual([319]);
      expect(run.code).toBe(failed.length > 0 ? 1 : 0);
      const world = JSON.parse((await examctl(['local', 'export', '--store', store], dir)).stdout) as {
        Schedules: { ScheduleExtId: string; Invigilators: string[] }[];
      };
      expect(world.Schedules.find((s) => s.ScheduleExtId === 'S-FUTURE')?.Invigilators).toEqual(['inv-3']);
    });
  });

  it('its CSV report (file, line, id, schedule, status...) is an id file again; --only-failed keeps the 319 row', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const report = join(dir, 'r.csv');
      const first = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', corpus('ids.txt'), '--report', report, '--store', store],
        dir,
      );
      expect(first.code).toBe(1);
      expect(parseCsv(await readFile(report, 'utf8'))).toEqual([
        ['file', 'line', 'id', 'schedule', 'status', 'error_codes', 'error_messages', 'action', 'note', 'run'],
        [corpus('ids.txt'), '3', 'inv-1', 'S-FUTURE', 'ok', '', '', 'removed', '', RUN],
        [corpus('ids.txt'), '5', 'inv-2', 'S-FUTURE', 'ok', '', '', 'removed', '', RUN],
        [
          corpus('ids.txt'),
          '6',
          'nobody-9',
          'S-FUTURE',
          'failed',
          '319',
          expect.stringContaining('nobody-9') as unknown as string,
          '',
          'not an invigilator of S-FUTURE: nothing to remove (with --missing-ok that is ok)',
          RUN,
        ],
      ]);
      const again = parseReport(
        await examctl(
          ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', '--json', '--store', store],
          dir,
        ),
      );
      expect(again.items.map((i) => [i.source.line, i.id, i.status])).toEqual([[4, 'nobody-9', 'failed']]);
    });
  });
});
