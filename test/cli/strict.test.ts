import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * docs/cli.md, "--strict": every warning fails its record (status failed, exit 1, nothing of it
 * sent), for every record command, real run and dry run alike; the report keeps the warning's
 * code and text, as the record's errors and as its warnings.
 */

const WORLD = resolve(__dirname, '../../fixtures/world.json');

interface Item {
  id: string;
  status: string;
  errors: { field: string; code: number | null; message: string }[];
  warnings?: { field: string; code: number; message: string }[];
}

async function run(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...argv], io.deps);
  return { code, stderr: io.stderr.text, items: () => (JSON.parse(io.stdout.text) as { items: Item[] }).items };
}

async function usersInStore(dir: string): Promise<string[]> {
  const io = testDeps(dir);
  await runCli(['local', 'export', '--store', join(dir, 'store')], io.deps);
  return (JSON.parse(io.stdout.text) as { Users: { ExternalId: string }[] }).Users.map((user) => user.ExternalId);
}

const USERS =
  'ExternalId,FirstName,LastName,Email,Role,PhoneNumber\nw-1,Ann,Lee,w1@example.test,Candidate,1.23457E+18\nw-2,Bo,Ng,w2@example.test,Candidate,0612\n';

describe('--strict', () => {
  it("user sync: a warned row fails with the warning's code and text, is not sent, and the run exits 1; without it the row is sent", async () => {
    await withTempDir(async (dir) => {
      expect(await runCli(['local', 'init', '--store', join(dir, 'store'), '--seed', WORLD], testDeps(dir).deps)).toBe(
        0,
      );
      await writeFile(join(dir, 'users.csv'), USERS);
      const strict = await run(dir, ['--json', '--strict', 'user', 'sync', '--file', 'users.csv', '--report', 'r.csv']);
      expect(strict.code).toBe(1);
      const [warned, clean] = strict.items();
      const expected = {
        field: 'PhoneNumber',
        code: 9003,
        message:
          'PhoneNumber "1.23457E+18" looks like a long number a spreadsheet showed in exponent form (its digits are lost): format the column as text and type the value again',
      };
      expect(warned).toMatchObject({ id: 'w-1', status: 'failed', errors: [expected], warnings: [expected] });
      expect(clean).toMatchObject({ id: 'w-2', status: 'ok' });
      expect(await usersInStore(dir)).not.toContain('w-1');
      expect((await readFile(join(dir, 'r.csv'), 'utf8')).split(/\r?\n/)[1]).toMatch(
        /^w-1,.*,failed,9003,"PhoneNumber: PhoneNumber ""1\.23457E\+18"" looks like a long number/,
      );
      expect(strict.stderr).toContain(
        'users.csv:2 [w-1] PhoneNumber 9003 PhoneNumber "1.23457E+18" looks like a long number',
      );

      // A dry run fails it too (invalid), sending nothing.
      const dry = await run(dir, ['--json', '--strict', '--dry-run', 'user', 'sync', '--file', 'users.csv']);
      expect(dry.code).toBe(1);
      expect(dry.items()[0]).toMatchObject({ status: 'failed', errors: [expect.objectContaining({ code: 9003 })] });

      const lenient = await run(dir, ['--json', 'user', 'sync', '--file', 'users.csv']);
      expect(lenient.code).toBe(0);
      expect(lenient.items()[0]).toMatchObject({ status: 'ok', errors: [], warnings: [expected] });
      expect(await usersInStore(dir)).toContain('w-1');
    });
  });

  it('schedule push and collection add: a value wider than the API text (9007) fails its record under --strict', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'c.json'),
        JSON.stringify([
          { ExternalId: 'Physics2027', Title: 'Physics' },
          { ExternalId: 'chem2027', Title: 'Chemistry' },
        ]),
      );
      const collections = await run(dir, ['--json', '--strict', '--dry-run', 'collection', 'add', '--file', 'c.json']);
      expect(collections.code).toBe(1);
      expect(collections.items().map((item) => [item.id, item.status, item.errors[0]?.code ?? null])).toEqual([
        ['Physics2027', 'failed', 9007],
        ['chem2027', 'ok', null],
      ]);
      await writeFile(
        join(dir, 's.csv'),
        'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,PIN,CandidateExtId,FirstName,LastName,Email\n' +
          'S-PIN,A-MATH-1,2026-12-14T09:00:00Z,H-NORTH-DEC,North,12a4,c-1,Ann,Lee,c1@example.test\n',
      );
      const schedules = await run(dir, ['--json', '--strict', 'schedule', 'push', '--file', 's.csv']);
      expect(schedules.code).toBe(1);
      expect(schedules.items()[0]).toMatchObject({
        id: 'S-PIN',
        status: 'failed',
        errors: [expect.objectContaining({ field: 'Schedule.PIN', code: 9007 })],
      });
    });
  });

  it("a profile's strict fails warned rows of every command that has no flag about it; --no-strict wins for one run", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      expect(
        await runCli(
          ['config', 'set-profile', 'school', '--base-url', 'https://exam.example.org', '--strict'],
          testDeps(dir).deps,
        ),
      ).toBe(0);
      // Named: a default profile with a base URL is not used on the local target these runs name.
      const fromProfile = await run(dir, [
        '--profile',
        'school',
        '--json',
        '--dry-run',
        'user',
        'sync',
        '--file',
        'users.csv',
      ]);
      expect(fromProfile.code).toBe(1);
      expect(fromProfile.items().map((item) => [item.id, item.status, item.errors[0]?.code ?? null])).toEqual([
        ['w-1', 'failed', 9003],
        ['w-2', 'ok', null],
      ]);
      const flagWins = await run(dir, [
        '--profile',
        'school',
        '--json',
        '--dry-run',
        '--no-strict',
        'user',
        'sync',
        '--file',
        'users.csv',
      ]);
      expect(flagWins.code).toBe(0);
      expect(flagWins.items()[0]).toMatchObject({
        id: 'w-1',
        status: 'ok',
        warnings: [expect.objectContaining({ code: 9003 })],
      });
    });
  });
});
