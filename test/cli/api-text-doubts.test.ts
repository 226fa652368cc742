import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** docs/domain-rules.md, "Where the API text and examctl differ": sent, with the API's words as a warning. */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}
type Report = { items: { status: string; warnings?: { field: string; message: string }[] }[] };

describe('records wider than the API text', () => {
  it('collection add with an upper-case ExternalId: created, the report warns with code 802', async () => {
    await withTempDir(async (dir) => {
      const run = await cli(dir, ['collection', 'add', '--title', 'Maths', '--external-id', 'Maths2026', '--json']);
      expect(run.code).toBe(0);
      const item = (JSON.parse(run.stdout) as Report).items[0];
      expect(item?.status).toBe('ok');
      expect(item?.warnings?.[0]).toMatchObject({ field: 'ExternalId', message: expect.stringContaining('"Alphanumeric, a-z and 0-9"') });
    });
  });

  it('schedule push with a three-digit PIN and a dashed template: sent, two warnings, the PIN never printed', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 's.csv'),
        'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,PIN,UseProctoringService,ProctoringServiceTemplateExternalId,CandidateExtId,FirstName,LastName,Email\n' +
          'S-1,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,739,true,PT-STD,c-1,Ann,Lee,a@example.test\n',
      );
      const run = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--json']);
      expect(run.code).toBe(0);
      const item = (JSON.parse(run.stdout) as Report).items[0];
      expect(item?.status).toBe('ok');
      expect(item?.warnings?.map((w) => w.field).sort()).toEqual(['Schedule.PIN', 'Schedule.ProctoringServiceTemplateExternalId']);
      expect(run.stdout + run.stderr).not.toMatch(/\b739\b/);
      const schedules = (JSON.parse((await cli(dir, ['local', 'export'])).stdout) as { Schedules: { ScheduleExtId: string; PIN?: string }[] }).Schedules;
      expect(schedules.find((s) => s.ScheduleExtId === 'S-1')?.PIN).toBe('739');
    });
  });
});
