import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { inTempDir } from '../corpus/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';

// An `invigilators remove` report names the schedule its run removed from (a `schedule` column):
// fed back with --only-failed to another schedule, its failures (319 on S-LIVE at the pinned
// now; 305 once S-LIVE is finished) are not that schedule's, so the retry is refused before anything is sent, naming both schedules.

async function invigilatorsOf(dir: string, schedule: string): Promise<string[] | undefined> {
  const world = JSON.parse((await examctl(['local', 'export', '--store', join(dir, 's')], dir)).stdout) as {
    Schedules: { ScheduleExtId: string; Invigilators: string[] }[];
  };
  return world.Schedules.find((entry) => entry.ScheduleExtId === schedule)?.Invigilators;
}

describe.each(['csv', 'xlsx'])('invigilators remove --only-failed with a %s report', (ext) => {
  it("refuses another schedule's report and retries the same schedule's", async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const report = join(dir, `invL.${ext}`);
      const first = await examctl(
        ['invigilators', 'remove', 'S-LIVE', 'inv-1', '--report', report, '--store', store],
        dir,
      );
      expect(first.code).toBe(1);
      if (ext === 'csv') {
        const [header, row] = (await readFile(report, 'utf8')).split(/\r?\n/);
        expect(header).toBe('file,line,id,schedule,status,error_codes,error_messages,action,note,run');
        expect(row).toMatch(/^<arguments>,1,inv-1,S-LIVE,failed,319,/);
      }
      const before = await invigilatorsOf(dir, 'S-FUTURE');
      expect(before).toContain('inv-1');

      for (const dry of [[], ['--dry-run']]) {
        const other = await examctl(
          ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', ...dry, '--json', '--store', store],
          dir,
        );
        expect(other.code).toBe(2);
        expectOnlyErrorDocument(other.stdout, 2);
        expectCoded(other.stderr, 'E2000', 'S-LIVE', 'S-FUTURE', 'nothing was sent');
      }
      expect(await invigilatorsOf(dir, 'S-FUTURE')).toEqual(before);

      // The same schedule's retry works as before: the id is sent again (and fails again: inv-1 is not an invigilator of S-LIVE).
      const same = await examctl(
        ['invigilators', 'remove', 'S-LIVE', '--file', report, '--only-failed', '--json', '--store', store],
        dir,
      );
      expect(same.code).toBe(1);
      const items = (JSON.parse(same.stdout) as { items: { id: string; status: string; errors: { code: number }[] }[] })
        .items;
      expect(items.map((item) => [item.id, item.status, item.errors.map((error) => error.code)])).toEqual([
        ['inv-1', 'failed', [319]],
      ]);
    });
  });
});

describe('invigilators remove --only-failed with its own schedule', () => {
  it('sends the ids still not ok, and the retry report names the schedule again', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 's');
      const report = join(dir, 'r.csv');
      const retry = join(dir, 'retry.csv');
      const first = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', 'inv-1', 'not-an-invigilator-x', '--report', report, '--store', store],
        dir,
      );
      expect(first.code).toBe(1);
      const run = await examctl(
        ['invigilators', 'remove', 'S-FUTURE', '--file', report, '--only-failed', '--report', retry, '--store', store],
        dir,
      );
      expect(run.code, run.stderr).toBe(1);
      const lines = (await readFile(retry, 'utf8')).split(/\r?\n/);
      expect(lines[0]).toBe('file,line,id,schedule,status,error_codes,error_messages,action,note,run');
      expect(lines[1]).toMatch(/r\.csv,3,not-an-invigilator-x,S-FUTURE,failed,319,/);
      expect(lines[2]).toBe('');
      expect(await invigilatorsOf(dir, 'S-FUTURE')).not.toContain('inv-1');
    });
  });
});
