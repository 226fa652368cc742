import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { onTarget } from '../support/target-flags.js';

/** docs/domain-rules.md, "Where the API text and examctl differ": sent, with the API's words as a warning. */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(onTarget(['--target', 'local', '--store', join(dir, 'store')], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}
type Report = {
  items: {
    status: string;
    errors?: { field: string; code: number | null; message: string }[];
    warnings?: { field: string; message: string }[];
  }[];
};

describe('records wider than the API text', () => {
  it("collection add with an upper-case ExternalId: valid in a dry run with the 802 warning; the local engine, keeping the text's letter, refuses it with 802", async () => {
    await withTempDir(async (dir) => {
      const dry = await cli(dir, [
        'collection',
        'add',
        '--title',
        'Maths',
        '--external-id',
        'Maths2026',
        '--dry-run',
        '--json',
      ]);
      expect(dry.code).toBe(0);
      const checked = (JSON.parse(dry.stdout) as Report).items[0];
      expect(checked?.status).toBe('ok');
      expect(checked?.warnings?.[0]).toMatchObject({
        field: 'ExternalId',
        message: expect.stringContaining('"Alphanumeric, a-z and 0-9"'),
      });
      const run = await cli(dir, ['collection', 'add', '--title', 'Maths', '--external-id', 'Maths2026', '--json']);
      expect(run.code).toBe(1);
      const item = (JSON.parse(run.stdout) as Report).items[0];
      expect(item?.status).toBe('failed');
      expect(item?.errors).toEqual([
        { field: 'ExternalId', code: 802, message: 'ExternalId must be alphanumeric (a-z, 0-9)' },
      ]);
      expect(item?.warnings?.[0]?.field).toBe('ExternalId');
    });
  });

  it('schedule push with a three-digit PIN: sent, a warning, the PIN never printed', async () => {
    await withTempDir(async (dir) => {
      const { run, item } = await pushOneSchedule(dir, { PIN: '739', ProctoringServiceTemplateExternalId: 'PTSTD' });
      expect(run.code).toBe(0);
      expect(item?.status).toBe('ok');
      expect(item?.warnings?.map((w) => w.field)).toEqual(['Schedule.PIN']);
      expect(run.stdout + run.stderr).not.toMatch(/\b739\b/);
      const schedules = (
        JSON.parse((await cli(dir, ['local', 'export'])).stdout) as {
          Schedules: { ScheduleExtId: string; PIN?: string }[];
        }
      ).Schedules;
      expect(schedules.find((s) => s.ScheduleExtId === 'S-1')?.PIN).toBe('739');
    });
  });

  it('schedule push with the dashed template id PT-STD: refused before sending, the message showing it without the dash', async () => {
    await withTempDir(async (dir) => {
      const { run, item } = await pushOneSchedule(dir, { ProctoringServiceTemplateExternalId: 'PT-STD' });
      expect(run.code).toBe(1);
      expect(item?.status).toBe('failed');
      expect(item?.errors?.[0]).toMatchObject({
        field: 'Schedule.ProctoringServiceTemplateExternalId',
        code: null,
        message: expect.stringContaining('did you mean "PTSTD"?'),
      });
    });
  });
});

/** One proctored schedule with one candidate, pushed to the local target from a CSV with these extra cells. */
async function pushOneSchedule(dir: string, cells: Record<string, string>) {
  const row = {
    ScheduleExtId: 'S-1',
    AssessmentExtId: 'A-MATH-1',
    StartDateTime: '2026-12-01T09:00:00Z',
    GroupExtId: 'G-1',
    GroupName: 'Group one',
    UseProctoringService: 'true',
    ...cells,
    CandidateExtId: 'c-1',
    FirstName: 'Ann',
    LastName: 'Lee',
    Email: 'a@example.test',
  };
  await writeFile(join(dir, 's.csv'), `${Object.keys(row).join(',')}\n${Object.values(row).join(',')}\n`);
  const run = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--json']);
  return { run, item: (JSON.parse(run.stdout) as Report).items[0] };
}
