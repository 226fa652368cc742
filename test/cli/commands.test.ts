import { describe, it, expect } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from './helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { lineWith, summaryOf } from '../support/facts.js';

const FIXTURES = resolve(__dirname, '../../fixtures');

async function cli(
  dir: string,
  argv: string[],
  overrides: Partial<CommandDeps> = {},
  env: Record<string, string> = {},
) {
  const io = testDeps(dir, overrides, env);
  // A store typed beside --target remote names two targets (exit 2): the remote calls go without it.
  const store =
    argv.includes('--target') && argv[argv.indexOf('--target') + 1] === 'remote' ? [] : ['--store', join(dir, 'store')];
  const code = await runCli([...store, ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

type Item = {
  source: { file: string; line: number };
  id: string | null;
  status: string;
  errors: { field: string; code: number | null; message: string; line?: number }[];
};

describe('user sync', () => {
  it('syncs valid users and reports invalid rows by file, line, field and code (exit 1)', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await cli(dir, [
        'user',
        'sync',
        '--file',
        join(FIXTURES, 'users-with-errors.csv'),
        '--json',
      ]);
      expect(code).toBe(1);
      const doc = JSON.parse(stdout);
      expect(doc.command).toBe('user sync');
      expect(doc.target).toEqual({ kind: 'local', store: join(dir, 'store') });
      expect(doc.items.map((i: Item) => `${i.source.line}:${i.status}`)).toEqual([
        '2:ok',
        '3:failed',
        '4:failed',
        '5:failed',
        '6:ok',
      ]);
      expect(doc.items.map((i: Item) => i.errors[0]?.code ?? null)).toEqual([null, 209, 250, 219, null]);
      expect(doc.summary).toEqual({
        total: 5,
        ok: 2,
        partial: 0,
        failed: 3,
        skipped: 0,
        created: 2,
        updated: 0,
        actions: { create: 2, invalid: 3 },
      });
      expect(stderr).toContain('created local store');
      expect(stderr).toContain(`local store ${join(dir, 'store')}`);
    });
  });

  it('--dry-run without a store validates only and creates nothing', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await cli(dir, [
        'user',
        'sync',
        '--file',
        join(FIXTURES, 'users.csv'),
        '--dry-run',
        '--json',
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).dryRun).toBe(true);
      expect(JSON.parse(stdout).summary.ok).toBe(20);
      expect(stderr).toContain('no store yet at');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it('--dry-run on an existing store plans without writing', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const before = (await cli(dir, ['local', 'export'])).stdout;
      const { code, stdout } = await cli(dir, [
        'user',
        'sync',
        '--file',
        join(FIXTURES, 'users.csv'),
        '--dry-run',
        '--json',
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).items[0].action).toBe('created');
      expect((await cli(dir, ['local', 'export'])).stdout).toBe(before);
    });
  });

  it('CSV report gives rows back, neutralises formulas, and feeds --only-failed', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(
        input,
        'ExternalId,FirstName,LastName,Email,Role\nu-1,"=HYPERLINK(""http://x"")",Ok,u1@example.test,Candidate\nu-2,Bad,Mail,not-an-address,Candidate\n',
      );
      const first = await cli(dir, ['user', 'sync', '--file', input, '--report', 'report.csv']);
      expect(first.code).toBe(1);
      const report = await readFile(join(dir, 'report.csv'), 'utf8');
      const lines = report.split(/\r?\n/);
      expect(lines[0]).toBe(
        'ExternalId,FirstName,LastName,Email,Role,status,error_codes,error_messages,action,note,run',
      );
      expect(lines[1]).toMatch(
        /^u-1,"'=HYPERLINK\(""http:\/\/x""\)",Ok,u1@example\.test,Candidate,ok,,,created,,\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/,
      );
      expect(lines[2]).toMatch(/^u-2,Bad,Mail,not-an-address,Candidate,failed,209,"?Email: /);

      // Fix the failed row in the report and feed it back: only that row is read.
      await writeFile(join(dir, 'report.csv'), report.replace('not-an-address', 'u2@example.test'));
      const second = await cli(dir, ['user', 'sync', '--file', 'report.csv', '--only-failed', '--json']);
      expect(second.code).toBe(0);
      const doc = JSON.parse(second.stdout);
      expect(doc.items.map((i: Item) => i.id)).toEqual(['u-2']);
      expect(doc.items[0].source.line).toBe(3);
    });
  });

  it('--report x.json holds the same document; a bad report name is a usage error before sending', async () => {
    await withTempDir(async (dir) => {
      const ok = await cli(dir, ['user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--report', 'r.json']);
      expect(ok.code).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')).summary.ok).toBe(20);
      const bad = await cli(dir, ['user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--report', 'r.txt']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('examctl: E2000: --report r.txt');
    });
  });

  it('a hostile file cannot act on the terminal: its ids and column names reach stderr without ESC, BEL or bidi overrides', async () => {
    await withTempDir(async (dir) => {
      const rows = join(dir, 'rows.csv');
      await writeFile(
        rows,
        'ExternalId,FirstName,LastName,Role\n"x\u001b[2J\u001b]0;pwned\u0007\u202eRED",A,B,Candidate\n',
      );
      const failed = await cli(dir, ['user', 'sync', '--file', rows, '--dry-run']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('[x?[2J?]0;pwned??RED] ExternalId 219');
      const columns = join(dir, 'columns.csv');
      await writeFile(columns, 'ExternalId,First\u001b]0;pwned\u0007Name,LastName\nu1,A,B\n');
      const usage = await cli(dir, ['user', 'sync', '--file', columns, '--dry-run']);
      expect(usage.code).toBe(2);
      // Quoted as every value is: the control characters escaped, never sent.
      expect(usage.stderr).toContain('unknown column: "First\\u001b]0;pwned\\u0007Name"');
      for (const stderr of [failed.stderr, usage.stderr]) expect(stderr).not.toMatch(/[\u001b\u0007\u202e]/);
    });
  });

  it('--max-errors stops after n failures and skips the rest', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, [
        'user',
        'sync',
        '--file',
        join(FIXTURES, 'users-with-errors.csv'),
        '--max-errors',
        '1',
        '--json',
      ]);
      expect(code).toBe(1);
      const doc = JSON.parse(stdout);
      expect(doc.items.map((i: Item) => i.status)).toEqual(['ok', 'failed', 'skipped', 'skipped', 'skipped']);
    });
  });

  it('a malformed input file exits 2 with file:line and creates no store', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'broken.csv'), 'ExternalId,FirstName,LastName,Shoe\nu-1,A,B,42\n');
      const { code, stdout, stderr } = await cli(dir, ['user', 'sync', '--file', 'broken.csv', '--json']);
      expect(code).toBe(2);
      // With --json, stdout is still one document: the error, and no report.
      expect(JSON.parse(stdout)).toMatchObject({
        error: { exitCode: 2, kind: 'input-file', file: 'broken.csv', line: 1 },
      });
      expect(stdout).not.toContain('"items"');
      expect(stderr).toMatch(/examctl: E2100: broken\.csv:1: .*Shoe/);
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it('without --file and without a terminal is a usage error', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, ['user', 'sync']);
      expect(code).toBe(2);
      expect(stderr).toContain('--file');
    });
  });
});

describe('user sync: AllowedIpAddresses past the string(34) the API text declares (docs/interpretations.md, "Where examctl differs from the API text")', () => {
  it('a full IPv6 address (39 characters) and a range of two are valid and sent, with no warning', async () => {
    await withTempDir(async (dir) => {
      const full = '2001:0db8:85a3:0000:0000:8a2e:0370:7334';
      const range = '2001:0db8:0000:0000:0000:0000:0000:0001-2001:0db8:0000:0000:0000:0000:0000:00ff';
      await writeFile(
        join(dir, 'u.csv'),
        `ExternalId,FirstName,LastName,Role,AllowedIpAddresses\nu-ipv6,Ip,Six,Candidate,${full}|${range}\n`,
      );
      const { code, stdout } = await cli(dir, ['user', 'sync', '--file', 'u.csv', '--json']);
      expect(code).toBe(0);
      const [item] = JSON.parse(stdout).items as (Item & { warnings?: unknown[] })[];
      expect(item!.status).toBe('ok');
      expect(item!.warnings ?? []).toEqual([]);
      const world = JSON.parse((await cli(dir, ['local', 'export'])).stdout);
      expect(world.Users.find((u: { ExternalId: string }) => u.ExternalId === 'u-ipv6').AllowedIpAddresses).toEqual([
        full,
        range,
      ]);
    });
  });
});

describe('schedule push', () => {
  it('groups a sittings CSV into one request per schedule', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, ['schedule', 'push', '--file', join(FIXTURES, 'sittings.csv'), '--json']);
      expect(code).toBe(0);
      const doc = JSON.parse(stdout);
      expect(doc.items.map((i: Item) => `${i.id}@${i.source.line}:${i.status}`)).toEqual([
        'S-MATH1-DEC@2:ok',
        'S-PHYS2-JAN@8:ok',
      ]);
      const world = JSON.parse((await cli(dir, ['local', 'export'])).stdout);
      const math = world.Schedules.find((s: { ScheduleExtId: string }) => s.ScheduleExtId === 'S-MATH1-DEC');
      expect(math.Candidates).toHaveLength(6);
    });
  });

  it('a candidate whose ProctorUIds holds an empty entry fails locally, code null, naming the entry; nothing is sent (docs/interpretations.md, "Candidates")', async () => {
    await withTempDir(async (dir) => {
      const request = {
        Schedule: {
          ScheduleExtId: 'S-PROCTOR',
          AssessmentExtId: 'A-MATH-1',
          StartDateTime: '2026-12-01T09:00:00Z',
          GroupExtId: 'H-NORTH',
          GroupName: 'North campus',
        },
        Candidates: [
          { CandidateExtId: 'c-proctor', FirstName: 'A', LastName: 'B', Email: 'a@example.test', ProctorUIds: [''] },
        ],
      };
      await writeFile(join(dir, 's.json'), JSON.stringify([request]));
      const { code, stdout } = await cli(dir, ['schedule', 'push', '--file', 's.json', '--json']);
      expect(code).toBe(1);
      const [item] = JSON.parse(stdout).items as Item[];
      expect(item!.status).toBe('failed');
      expect(item!.errors.map((e) => [e.field, e.code])).toEqual([['Candidates[0].ProctorUIds[0]', null]]);
      const world = JSON.parse((await cli(dir, ['local', 'export'])).stdout);
      expect(world.Schedules.map((schedule: { ScheduleExtId: string }) => schedule.ScheduleExtId)).not.toContain(
        'S-PROCTOR',
      );
    });
  });

  it('reports disagreeing schedule columns and bad candidates on their own lines', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 's.csv'),
        [
          'ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email',
          'S-1,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,c-1,A,B,a@example.test',
          'S-1,A-MATH-1,2026-12-02T09:00:00Z,G-1,Group one,c-2,C,D,c@example.test',
          'S-2,A-MATH-1,2026-12-01T09:00:00Z,G-1,Group one,c-3,E,F,bad mail',
          '',
        ].join('\n'),
      );
      const { code, stdout } = await cli(dir, ['schedule', 'push', '--file', 's.csv', '--json']);
      expect(code).toBe(1);
      const [s1, s2] = JSON.parse(stdout).items as Item[];
      expect(s1!.status).toBe('failed');
      expect(s1!.errors[0]).toMatchObject({ line: 3, field: 'Schedule.StartDateTime' });
      expect(s2!.errors[0]).toMatchObject({ line: 4, field: 'Candidates[0].Email' });
    });
  });

  it('takes the schedule from flags for a candidates CSV', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'c.csv'),
        'CandidateExtId,FirstName,LastName,Email,SpecialNeeds,ReasonableAdjustmentPercentage\nc-9,Ann,Lee,ann@example.test,yes,20\n',
      );
      const { code, stdout } = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--json',
        '--schedule-id',
        'S-FLAGS',
        '--assessment',
        'A-MATH-1',
        '--start',
        '2026-12-05T09:00:00+01:00',
        '--group',
        'G-FLAGS',
        '--group-name',
        'Flags group',
        '--no-proctoring',
      ]);
      expect(JSON.parse(stdout).items[0]).toMatchObject({ id: 'S-FLAGS', status: 'ok' });
      expect(code).toBe(0);
      const world = JSON.parse((await cli(dir, ['local', 'export'])).stdout);
      const schedule = world.Schedules.find((s: { ScheduleExtId: string }) => s.ScheduleExtId === 'S-FLAGS');
      expect(schedule.StartDateTime).toBe('2026-12-05T08:00:00.000Z');
      expect(schedule.UseProctoringService).toBe(false);
    });
  });

  it('a candidates file without the required schedule flags is a usage error naming them', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-9,Ann,Lee,ann@example.test\n');
      const { code, stderr } = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--assessment',
        'A-MATH-1',
        '--no-input',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('--start, --group, --group-name');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it('sends JSON requests as they are and fails both requests of a ScheduleExtId used twice in one file', async () => {
    await withTempDir(async (dir) => {
      const request = (id: string) => ({
        Schedule: {
          ScheduleExtId: id,
          AssessmentExtId: 'A-MATH-1',
          StartDateTime: '2026-12-01T09:00:00Z',
          GroupExtId: 'G-J',
          GroupName: 'J',
        },
        Candidates: [{ CandidateExtId: 'c-j', FirstName: 'J', LastName: 'K', Email: 'j@example.test' }],
      });
      await writeFile(join(dir, 'r.json'), JSON.stringify([request('S-J1'), request('S-J1')], null, 2));
      const { code, stdout } = await cli(dir, ['schedule', 'push', '--file', 'r.json', '--json']);
      expect(code).toBe(1);
      const items = JSON.parse(stdout).items as Item[];
      expect(items.map((i) => i.status)).toEqual(['failed', 'failed']);
      const [first, second] = items.map((i) => i.source.line);
      expect(items.map((i) => i.errors[0]!.message)).toEqual([
        `ScheduleExtId S-J1 is also on line ${second}; an id appears once in one file`,
        `ScheduleExtId S-J1 is also on line ${first}; an id appears once in one file`,
      ]);
    });
  });

  it("a JSON request without Schedule or Candidates, or with Candidates not a list, fails with the API's required-field problem, not a flags message", async () => {
    await withTempDir(async (dir) => {
      const schedule = {
        ScheduleExtId: 'S-R',
        AssessmentExtId: 'A-MATH-1',
        StartDateTime: '2026-12-01T09:00:00Z',
        GroupExtId: 'G-R',
        GroupName: 'R',
      };
      const candidates = [{ CandidateExtId: 'c-r', FirstName: 'R', LastName: 'S', Email: 'r@example.test' }];
      const required = (field: string, message: string) => ({ field, code: null, message });
      const cases: [string, unknown, ...{ field?: string; code: null; message: string }[]][] = [
        [
          'no-candidates.json',
          { Schedule: schedule },
          required('Candidates', 'Candidates is required (an empty list is allowed)'),
        ],
        [
          'candidates-object.json',
          { Schedule: schedule, Candidates: { CandidateExtId: 'c-r' } },
          required('Candidates', 'Candidates must be a list of candidate objects'),
        ],
        [
          'candidates-text.json',
          [{ Schedule: schedule, Candidates: 'c-r' }],
          required('Candidates', 'Candidates must be a list of candidate objects'),
        ],
        ['no-schedule.json', { Candidates: candidates }, required('Schedule', 'Schedule is required')],
        // Neither member: the request's own members alone, or none at all, are a request, never candidates.
        [
          'members-only.json',
          { Workflow: 'DEFAULT', Upsert: true },
          required('Schedule', 'Schedule is required'),
          required('Candidates', 'Candidates is required (an empty list is allowed)'),
        ],
        ['empty.json', {}, { code: null, message: 'All fields of the request body are empty' }],
      ];
      for (const [name, body, ...problems] of cases) {
        await writeFile(join(dir, name), JSON.stringify(body));
        for (const dryRun of [['--dry-run'], []]) {
          const { code, stdout, stderr } = await cli(dir, [
            'schedule',
            'push',
            '--file',
            name,
            '--json',
            '--no-input',
            ...dryRun,
          ]);
          expect(stderr, name).not.toContain('missing --');
          expect(code, name).toBe(1);
          const [item] = JSON.parse(stdout).items as Item[];
          expect(item!.status, name).toBe('failed');
          expect(item!.errors, name).toEqual(problems.map((problem) => expect.objectContaining(problem)));
        }
      }
      expect(
        JSON.parse((await cli(dir, ['local', 'export'])).stdout).Schedules.some(
          (s: { ScheduleExtId: string }) => s.ScheduleExtId === 'S-R',
        ),
      ).toBe(false);
    });
  });

  it('an empty object among candidate records is a structural error naming it (exit 2, nothing sent)', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'c.ndjson'),
        `${JSON.stringify({ CandidateExtId: 'c-e', FirstName: 'E', LastName: 'F', Email: 'e@example.test' })}\n{}\n`,
      );
      const flags = [
        '--assessment',
        'A-MATH-1',
        '--start',
        '2026-12-01T09:00:00Z',
        '--group',
        'G-E',
        '--group-name',
        'E',
        '--schedule-id',
        'S-E',
      ];
      const { code, stderr } = await cli(dir, ['schedule', 'push', '--file', 'c.ndjson', ...flags]);
      expect(code).toBe(2);
      expectCoded(stderr, 'E2100', 'c.ndjson:2:', 'empty object');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });
});

describe('collection add', () => {
  it('creates from flags and reports the generated id', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout, stderr } = await cli(dir, [
        'collection',
        'add',
        '--title',
        'Flags',
        '--taxonomy',
        'TX-BLOOM',
        '--repository',
        'LO-CORE',
        '--json',
      ]);
      expect(code).toBe(0);
      const item = JSON.parse(stdout).items[0];
      expect(item.source.file).toBe('<flags>');
      expect(item.id).toMatch(/^[a-z0-9]{16}$/);
      expect(lineWith(stderr, 'collection add', 'local store')).toMatch(/^collection add /);
    });
  });

  it('fails with the service code from a file (unknown taxonomy: 900)', async () => {
    await withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'c.json'),
        JSON.stringify([{ Title: 'One', Taxonomies: [{ ExternalId: 'TX-NOPE' }] }, { Title: '' }]),
      );
      const { code, stdout } = await cli(dir, ['collection', 'add', '--file', 'c.json', '--json']);
      expect(code).toBe(1);
      const items = JSON.parse(stdout).items as Item[];
      expect(items[0]!.errors.map((e) => e.code)).toContain(900);
      expect(items[1]!.errors.map((e) => e.code)).toContain(804);
    });
  });
});

describe('invigilators remove', () => {
  it('one item per id: removed ok, 319 failed', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', 'inv-1', 'nobody', '--json']);
      expect(code).toBe(1);
      const items = JSON.parse(stdout).items as Item[];
      expect(items.map((i) => `${i.id}:${i.status}`)).toEqual(['inv-1:ok', 'nobody:failed']);
      expect(items[1]!.errors[0]!.code).toBe(319);
    });
  });

  it('an archived schedule fails every id with 302; ids from a file name their lines', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.txt'), 'inv-2\ninv-9\n');
      const { code, stdout } = await cli(dir, ['invigilators', 'remove', 'S-ARCHIVED', '--file', 'ids.txt', '--json']);
      expect(code).toBe(1);
      const items = JSON.parse(stdout).items as Item[];
      expect(items.map((i) => `${i.source.file}:${i.source.line}:${i.status}:${i.errors[0]?.code}`)).toEqual([
        'ids.txt:1:failed:302',
        'ids.txt:2:failed:302',
      ]);
    });
  });

  it('an empty list ([] or null) and a list of empty ids ([""], "") are refused before sending, naming the API\'s codes 100 and 200', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'none.json'), '[]\n');
      await writeFile(join(dir, 'null.json'), 'null\n');
      await writeFile(join(dir, 'blank.json'), '[\n  "",\n  "  "\n]\n');
      for (const file of ['none.json', 'null.json']) {
        const none = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '--file', file]);
        expect(none.code, file).toBe(2);
        expectCoded(none.stderr, 'E2000', '--file', 'code 100');
        expect(none.stderr, file).toContain('nothing was sent');
      }
      const blank = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '--file', 'blank.json']);
      expect(blank.code).toBe(2);
      expectCoded(blank.stderr, 'E2100', 'blank.json:2', 'code 200');
      const argument = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '', '--json']);
      expect(argument.code).toBe(1);
      expect((JSON.parse(argument.stdout).items as Item[])[0]!.errors[0]!.code).toBe(200);
      // Nothing was removed: both invigilators are still there.
      const removed = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', 'inv-1', '--json']);
      expect((JSON.parse(removed.stdout).items as Item[])[0]!.status).toBe('ok');
    });
  });

  it('no id while prompts are off (--no-input, CI=true, no terminal) is exit 2 naming code 100, as every list without ids', async () => {
    await withTempDir(async (dir) => {
      const runs = [
        [await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '--no-input'], { isTTY: true }), '--no-input'],
        [await cli(dir, ['invigilators', 'remove', 'S-FUTURE'], { isTTY: true }, { CI: 'true' }), 'CI=true'],
        [await cli(dir, ['invigilators', 'remove', 'S-FUTURE']), 'no terminal'],
      ] as const;
      for (const [run, off] of runs) {
        expect(run.code).toBe(2);
        // The sentence docs/human.md, "When examctl asks" shows.
        expect(run.stderr).toContain(
          `no invigilator user ids: give them as arguments or with --file (prompts are off: ${off}; the API refuses an empty list with code 100 (request body null or empty); nothing was sent)`,
        );
      }
    });
  });

  it('an empty id among others: as an argument it fails its own item (code null) and the rest go; in a --file list the file is malformed (exit 2, nothing sent)', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'mixed.json'), '["", "inv-2"]\n');
      const file = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '--file', 'mixed.json']);
      expect(file.code).toBe(2);
      expectCoded(file.stderr, 'E2100', 'mixed.json:1:', 'element 0', 'empty id');
      const argument = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '', 'inv-2', '--json']);
      expect(argument.code).toBe(1);
      const items = JSON.parse(argument.stdout).items as Item[];
      expect(items.map((item) => [item.status, item.errors.map((error) => error.code)])).toEqual([
        ['failed', [null]],
        ['ok', []],
      ]);
    });
  });
});

describe('review-session show', () => {
  it('--json prints the Content object; -o csv the Results rows', async () => {
    await withTempDir(async (dir) => {
      const json = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
      expect(json.code).toBe(0);
      const content = JSON.parse(json.stdout);
      expect(content.ExternalId).toBe('RS-MATH1-OCT');
      expect(Array.isArray(content.Results)).toBe(true);
      const csv = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv']);
      // A UTF-8 BOM first, so Excel on Windows shows accents; --no-bom leaves it out.
      expect(csv.stdout.split(/\r?\n/)[0]).toMatch(/^\uFEFFCandidateExtId,ScheduleExtId/);
      expect((await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--no-bom'])).stdout).toMatch(
        /^CandidateExtId,ScheduleExtId/,
      );
      expect(csv.stdout.split(/\r?\n/).filter((l) => l !== '')).toHaveLength(content.Results.length + 1);
    });
  });

  // trial24 f03. Root writes a read-only file: an immutable one (chattr +i) refuses root too.
  it.skipIf(process.platform === 'win32')(
    'reads a store the user cannot write (read-only mode, no lock), as schedule links does',
    async () => {
      await withTempDir(async (dir) => {
        const store = join(dir, 'store');
        expect((await cli(dir, ['local', 'init'])).code).toBe(0);
        const journal = join(store, 'journal-1.ndjson');
        const readOnly = (on: boolean) =>
          process.getuid?.() === 0
            ? execFileSync('chattr', [on ? '+i' : '-i', journal])
            : chmodSync(journal, on ? 0o444 : 0o600);
        readOnly(true);
        try {
          const shown = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '--json']);
          expect(shown.stderr).not.toContain('permission');
          expect(JSON.parse(shown.stdout).ExternalId).toBe('RS-MATH1-OCT');
          expect(shown.code).toBe(0);
        } finally {
          readOnly(false);
        }
      });
    },
  );

  it('an unknown id exits 1 with code 1101', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, ['review-session', 'show', 'RS-NOPE']);
      expect(code).toBe(1);
      expect(stderr).toContain('1101');
    });
  });
});

describe('local init / export', () => {
  it('init refuses an existing store without --force; export is stable', async () => {
    await withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const again = await cli(dir, ['local', 'init']);
      expect(again.code).toBe(2);
      expect((await cli(dir, ['local', 'init', '--force'])).code).toBe(0);
      const a = await cli(dir, ['local', 'export']);
      const b = await cli(dir, ['local', 'export']);
      expect(a.stdout).toBe(b.stdout);
      expect(JSON.parse(a.stdout).Settings.SiteUrl).toBe('https://exam.example.test');
    });
  });

  it('init --force says what it did: created where there was no store, replaced where there was one', async () => {
    await withTempDir(async (dir) => {
      const first = await cli(dir, ['local', 'init', '--force']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain(`created local store at ${join(dir, 'store')}`);
      const second = await cli(dir, ['local', 'init', '--force']);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain(`replaced local store at ${join(dir, 'store')}`);
    });
  });

  it('export without a store exits 2 and creates nothing', async () => {
    await withTempDir(async (dir) => {
      const { code } = await cli(dir, ['local', 'export']);
      expect(code).toBe(2);
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });
});

describe('exit codes and targets', () => {
  it('a target failure exits 3 after writing the report, with the rest skipped', async () => {
    await withTempDir(async (dir) => {
      const { StoreLockedError } = await import('../../src/system/errors.js');
      const api = {
        upsertUser: async () => {
          throw new StoreLockedError('store is locked by process 4242');
        },
        close: async () => {},
      };
      const openApi = async () => api as never;
      const { code, stderr } = await cli(
        dir,
        ['user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--report', 'r.json'],
        { openApi },
      );
      expect(code).toBe(3);
      expectCoded(stderr, 'E3020', '4242');
      const report = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8'));
      expect(report.summary.skipped).toBe(20);
      expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    });
  });

  it('an unknown option is a usage error (2)', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, ['user', 'sync', '--nope']);
      expect(code).toBe(2);
      expect(stderr).toContain("examctl: E2001: unknown option '--nope'");
    });
  });

  it('an unexpected error is an internal error (70) without a stack unless --debug', async () => {
    await withTempDir(async (dir) => {
      const openApi = async () => {
        throw new Error('boom');
      };
      const plain = await cli(dir, ['user', 'sync', '--file', join(FIXTURES, 'users.csv')], { openApi });
      expect(plain.code).toBe(70);
      expectCoded(plain.stderr, 'E7001', 'boom', '--debug');
      expect(plain.stderr).not.toContain('    at ');
      const debug = await cli(dir, ['--debug', 'user', 'sync', '--file', join(FIXTURES, 'users.csv')], { openApi });
      expect(debug.stderr).toContain('    at ');
    });
  });

  it('remote under --no-input needs --yes, sends nothing, and never shows the token', async () => {
    await withTempDir(async (dir) => {
      // --target remote: a flag beats EXAMCTL_BASE_URL.
      const env = { EXAMCTL_BASE_URL: 'http://127.0.0.1:9', EXAMCTL_TOKEN: 'secret-token-value' };
      const { code, stderr } = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--no-input'],
        {},
        env,
      );
      expect(code).toBe(2);
      expect(stderr).toContain('--yes');
      expect(stderr).not.toContain('secret-token-value');
      const dry = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--dry-run', '--json'],
        {},
        env,
      );
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout).target).toEqual({ kind: 'remote', baseUrl: 'http://127.0.0.1:9' });
      expect(dry.stdout + dry.stderr).not.toContain('secret-token-value');
    });
  });

  it('a remote send asks first; "no" sends nothing (exit 2), "yes" goes on', async () => {
    await withTempDir(async (dir) => {
      const env = { EXAMCTL_BASE_URL: 'https://exam.example.test', EXAMCTL_TOKEN: 'tok' };
      const questions: string[] = [];
      let opened = 0;
      const openApi = async () => {
        opened += 1;
        return null;
      };
      const confirm = (answer: boolean) => async (question: string) => {
        questions.push(question);
        return answer;
      };
      const refused = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', join(FIXTURES, 'users.csv')],
        { isTTY: true, confirm: confirm(false), openApi },
        env,
      );
      expect(refused.code).toBe(2);
      expect(opened).toBe(0);
      expect(lineWith(questions[0]!, '20 records', 'remote https://exam.example.test')).toBeTruthy();
      const accepted = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', join(FIXTURES, 'users.csv')],
        { isTTY: true, confirm: confirm(true), openApi },
        env,
      );
      expect(accepted.code).toBe(0);
      expect(opened).toBe(1);
      const yes = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--yes'],
        { isTTY: true, confirm: confirm(false), openApi },
        env,
      );
      expect(yes.code).toBe(0);
      expect(questions).toHaveLength(2);
    });
  });

  it('an .xlsx saved again while the prompt waits (Excel saves by rename) is refused after "yes": nothing of it sent, the run stopped (exit 3, as CSV and JSON)', async () => {
    await withTempDir(async (dir) => {
      const env = { EXAMCTL_BASE_URL: 'https://exam.example.test', EXAMCTL_TOKEN: 'tok' };
      const sheet = (role: string, count: number) => [
        {
          name: 'Users',
          rows: [
            ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName', 'Role'],
            ...Array.from({ length: count }, (_, i) => [`u-${i}`, 'Ann', 'Lee', `u${i}@x.test`, `u-${i}`, role]),
          ],
        },
      ];
      await writeWorkbook(join(dir, 'in.xlsx'), sheet('Candidate', 1));
      await writeWorkbook(join(dir, 'saved.xlsx'), sheet('Author', 2));
      const calls: string[] = [];
      const api = new Proxy(
        {},
        { get: (_target, name) => (name === 'then' ? undefined : async () => void calls.push(String(name))) },
      );
      const confirm = async (question: string) => {
        expect(question).toContain('1 record to send');
        await rename(join(dir, 'saved.xlsx'), join(dir, 'in.xlsx'));
        return true;
      };
      const run = await cli(
        dir,
        ['--target', 'remote', 'user', 'sync', '--file', 'in.xlsx'],
        { isTTY: true, confirm, openApi: async () => api as never },
        env,
      );
      // The run had started (journal, report): a file changed from there on stops it resumable, exit 3 (docs/input-formats.md).
      expect(run.code, run.stderr).toBe(3);
      expectCoded(run.stderr, 'E3060', 'in.xlsx: ', 'examctl runs resume ');
      expect(summaryOf(run.stderr)).toMatchObject({ total: 1, ok: 0, partial: 0, failed: 0, skipped: 1 });
      // Asked where its store stands before the first write (a read): nothing sent.
      expect(calls.filter((name) => !['close', 'retryCounts', 'storeHead'].includes(name))).toEqual([]);
    });
  });

  // trial46 F07: the journal named the file found after the prompt, so `runs show` gave B's rows as sent.
  it.each(['csv', 'json', 'xlsx'])(
    'a .%s saved again while the prompt waits: the journal records the file checked, and runs show says the input changed',
    async (kind) => {
      await withTempDir(async (dir) => {
        const runsDir = join(dir, 'runs');
        const env = { EXAMCTL_BASE_URL: 'https://exam.example.test', EXAMCTL_TOKEN: 'tok', EXAMCTL_RUNS_DIR: runsDir };
        const head = ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName', 'Role'];
        const rows = (role: string, count: number) =>
          Array.from({ length: count }, (_, i) => [`u-${i}`, 'Ann', 'Lee', `u${i}@x.test`, `u-${i}`, role]);
        const write = async (name: string, role: string, count: number) => {
          const path = join(dir, name);
          if (kind === 'xlsx') await writeWorkbook(path, [{ name: 'Users', rows: [head, ...rows(role, count)] }]);
          else if (kind === 'json')
            await writeFile(
              path,
              JSON.stringify(rows(role, count).map((row) => Object.fromEntries(head.map((key, i) => [key, row[i]])))),
            );
          else await writeFile(path, [head, ...rows(role, count)].map((row) => row.join(',')).join('\n') + '\n');
          return readFile(path);
        };
        const checked = await write(`in.${kind}`, 'Candidate', 1);
        await write(`saved.${kind}`, 'Author', 2);
        const sent: string[] = [];
        const api = {
          upsertUser: async (request: { ExternalId: string; Role: string }) => {
            sent.push(`${request.ExternalId} ${request.Role}`);
            return {
              status: 200,
              envelope: {
                Success: true,
                Errors: null,
                Content: { User: { ExternalId: request.ExternalId }, GroupErrors: [] },
              },
            };
          },
          close: async () => {},
        };
        const confirm = async () => {
          await rename(join(dir, `saved.${kind}`), join(dir, `in.${kind}`));
          return true;
        };
        const run = await cli(
          dir,
          ['--target', 'remote', 'user', 'sync', '--file', `in.${kind}`],
          { isTTY: true, confirm, openApi: async () => api as never },
          env,
        );
        // A small CSV sends the rows its structure pass kept; a JSON or .xlsx read again stops (exit 3).
        expect(run.code, run.stderr).toBe(kind === 'csv' ? 0 : 3);
        expect(sent).toEqual(kind === 'csv' ? ['u-0 Candidate'] : []);
        const [id] = await readdir(runsDir);
        const header = JSON.parse((await readFile(join(runsDir, id!, 'journal.ndjson'), 'utf8')).split('\n')[0]!).b;
        expect(header.input).toEqual({
          path: join(dir, `in.${kind}`),
          size: checked.length,
          sha256: createHash('sha256').update(checked).digest('hex'),
        });
        const shown = testDeps(dir, {}, env);
        await runCli(['runs', 'show', 'last', '--report', 'rs.csv'], shown.deps);
        expect(shown.stderr.text).toContain(
          `its input file ${join(dir, `in.${kind}`)} changed since the run started: its size changed (${checked.length} -> `,
        );
        expect(shown.stderr.text).toContain('1 item: ');
        expect(await readFile(join(dir, 'rs.csv'), 'utf8')).not.toMatch(/Author|u-1/);
      });
    },
  );

  // trial46 F07 (fx46e): the id list, the --schedule and --map-file were fingerprinted after the prompt, not as read.
  it('invigilators remove --file: an id list saved again while the prompt waits is journaled as read, and runs show says it changed', async () => {
    await withTempDir(async (dir) => {
      const env = {
        EXAMCTL_BASE_URL: 'https://exam.example.test',
        EXAMCTL_TOKEN: 'tok',
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      };
      await writeFile(join(dir, 'ids.txt'), 'inv-1\n');
      await writeFile(join(dir, 'saved.txt'), 'inv-1\ninv-2\n');
      const sent: string[][] = [];
      const api = {
        removeInvigilators: async (_schedule: string, ids: string[]) => (
          sent.push(ids),
          { status: 200, envelope: { Success: true, Errors: null, Content: { SuccessfullyRemoved: ids, Errors: [] } } }
        ),
        close: async () => {},
      };
      const confirm = async () => (await rename(join(dir, 'saved.txt'), join(dir, 'ids.txt')), true);
      const run = await cli(
        dir,
        ['--target', 'remote', 'invigilators', 'remove', 'S-FUTURE', '--file', 'ids.txt'],
        { isTTY: true, confirm, openApi: async () => api as never },
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(sent).toEqual([['inv-1']]);
      const [id] = await readdir(join(dir, 'runs'));
      const header = JSON.parse((await readFile(join(dir, 'runs', id!, 'journal.ndjson'), 'utf8')).split('\n')[0]!).b;
      expect(header.input).toEqual({
        path: join(dir, 'ids.txt'),
        size: 6,
        sha256: createHash('sha256').update('inv-1\n').digest('hex'),
      });
      const shown = testDeps(dir, {}, env);
      await runCli(['runs', 'show', 'last', '--report', 'rs.csv'], shown.deps);
      expect(lineWith(shown.stderr.text, join(dir, 'ids.txt'), '(6 -> 12 bytes)')).toBeTruthy();
    });
  });

  // trial51 F01, F03 (fx51a): the journal took the profile, and judged its map file, again after the prompt.
  it.each(['F01 profile switched', 'F03 profile map saved again'])(
    'user sync: the %s while the prompt waits: the journal keeps the profile and map digest the run read',
    async (finding) => {
      await withTempDir(async (dir) => {
        const env = {
          EXAMCTL_BASE_URL: 'https://exam.example.test',
          EXAMCTL_TOKEN: 'tok',
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
        };
        const switched = finding.startsWith('F01');
        const map = '{"Staff ID": "ExternalId", "Group": "Hierarchies"}\n';
        await writeFile(join(dir, 'prof-map.json'), map);
        await writeFile(join(dir, 'other-map.json'), '{"Staff ID": "ExternalId"}\n');
        await writeFile(join(dir, 'run-map.json'), '{"Staff ID": "ExternalId"}\n');
        await writeFile(
          join(dir, 'v.csv'),
          'Staff ID,FirstName,LastName,Email,UserName,Role,Group\nv1,Ann,Lee,ann@x.test,v1,Candidate,H-NORTH\n',
        );
        const profile = (...flags: string[]) =>
          runCli(['config', 'set-profile', 'p', ...flags], testDeps(dir, {}, env).deps);
        expect(
          await profile(
            '--base-url',
            'https://exam.example.test',
            '--map-file',
            join(dir, 'prof-map.json'),
            '--ignore-unknown-columns',
            '--default',
          ),
        ).toBe(0);
        const sent: string[] = [];
        const api = {
          upsertUser: async (request: { ExternalId: string; Hierarchies?: unknown }) => (
            sent.push(`${request.ExternalId} ${JSON.stringify(request.Hierarchies)}`),
            {
              status: 200,
              envelope: {
                Success: true,
                Errors: null,
                Content: { User: { ExternalId: request.ExternalId }, GroupErrors: [] },
              },
            }
          ),
          close: async () => {},
        };
        const confirm = async () => {
          if (switched) expect(await profile('--map-file', join(dir, 'other-map.json'))).toBe(0);
          else await writeFile(join(dir, 'prof-map.json'), '{"Staff ID": "ExternalId"}\n');
          return true;
        };
        const run = await cli(
          dir,
          [
            '--target',
            'remote',
            'user',
            'sync',
            '--file',
            'v.csv',
            ...(switched ? [] : ['--map-file', 'run-map.json']),
          ],
          { isTTY: true, confirm, openApi: async () => api as never },
          env,
        );
        expect(run.code, run.stderr).toBe(0);
        expect(sent).toEqual([expect.stringContaining('v1 ') as string]);
        expect(sent[0]).toContain('H-NORTH');
        const [id] = await readdir(join(dir, 'runs'));
        const { b } = JSON.parse((await readFile(join(dir, 'runs', id!, 'journal.ndjson'), 'utf8')).split('\n')[0]!);
        expect([b.profile.defaults.mapFile, b.profile.mapFileSha256]).toEqual([
          join(dir, 'prof-map.json'),
          createHash('sha256').update(map).digest('hex'),
        ]);
      });
    },
  );

  it('schedule push: a --schedule and a --map-file saved again while the prompt waits are journaled with the digests of what was sent', async () => {
    await withTempDir(async (dir) => {
      const env = {
        EXAMCTL_BASE_URL: 'https://exam.example.test',
        EXAMCTL_TOKEN: 'tok',
        EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      };
      const schedule = (title: string) =>
        JSON.stringify({
          ScheduleExtId: 'S-1',
          AssessmentExtId: 'A-MATH-1',
          Title: title,
          StartDateTime: '2026-12-21T09:00:00Z',
          EndDateTime: '2026-12-21T12:00:00Z',
          GroupExtId: 'G-1',
          GroupName: 'Group',
        });
      const files = {
        'sched.json': schedule('Old'),
        'map.json': '{"Cand": "CandidateExtId"}\n',
        'saved-sched.json': schedule('New'),
        'saved-map.json': '{"Cand": "CandidateExtId", "Given": "FirstName"}\n',
      };
      for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
      await writeFile(join(dir, 'c.csv'), 'Cand,FirstName,LastName,Email,Given\nstu-1,Ann,Lee,ann@x.test,Zed\n');
      const sent: string[] = [];
      const api = {
        createSchedule: async (request: { Schedule: { Title: string }; Candidates: { FirstName: string }[] }) => (
          sent.push(`${request.Schedule.Title} ${request.Candidates[0]!.FirstName}`),
          { status: 200, envelope: { Success: true, Errors: null, Content: 'S-1' } }
        ),
        close: async () => {},
      };
      const confirm = async () => {
        for (const name of ['sched.json', 'map.json']) await rename(join(dir, `saved-${name}`), join(dir, name));
        return true;
      };
      const run = await cli(
        dir,
        [
          '--target',
          'remote',
          'schedule',
          'push',
          '--file',
          'c.csv',
          '--schedule',
          'sched.json',
          '--map-file',
          'map.json',
          '--ignore-unknown-columns',
        ],
        { isTTY: true, confirm, openApi: async () => api as never },
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(sent).toEqual(['Old Ann']);
      const [id] = await readdir(join(dir, 'runs'));
      const { options } = JSON.parse(
        (await readFile(join(dir, 'runs', id!, 'journal.ndjson'), 'utf8')).split('\n')[0]!,
      ).b;
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      expect([options.scheduleSha256, options.mapFileSha256]).toEqual([
        sha(files['sched.json']),
        sha(files['map.json']),
      ]);
      const shown = testDeps(dir, {}, env);
      await runCli(['runs', 'show', 'last', '--report', 'rs.csv'], shown.deps);
      expect(lineWith(shown.stderr.text, `--schedule file ${join(dir, 'sched.json')}`, 'SHA-256')).toBeTruthy();
    });
  });

  it('schedule push asks about schedules and candidates, not rows; --only-failed counts the rows still to send', async () => {
    await withTempDir(async (dir) => {
      const env = { EXAMCTL_BASE_URL: 'https://exam.example.test', EXAMCTL_TOKEN: 'tok' };
      const questions: string[] = [];
      const confirm = async (question: string) => {
        questions.push(question);
        return false;
      };
      const run = await cli(
        dir,
        ['--target', 'remote', 'schedule', 'push', '--file', join(FIXTURES, 'sittings.csv')],
        { isTTY: true, confirm, openApi: async () => null },
        env,
      );
      expect(run.code).toBe(2);
      // Per action, then what the requests hold, and where to read every record first.
      expect(
        lineWith(
          questions[0]!,
          'schedule push to remote https://exam.example.test',
          '2 to send',
          '2 schedules (10 candidates)',
        ),
      ).toBeTruthy();
      expect(questions[0]).toContain('--dry-run --report plan.html');
      // A report in which one schedule's rows are ok: only the other one is counted.
      const lines = (await readFile(join(FIXTURES, 'sittings.csv'), 'utf8')).trim().split(/\r?\n/);
      const report = [
        `${lines[0]},status,error_codes,error_messages`,
        ...lines.slice(1).map((line) => `${line},${line.startsWith('S-MATH1-DEC,') ? 'ok' : 'failed'},,`),
      ];
      await writeFile(join(dir, 'r.csv'), `${report.join('\n')}\n`);
      const failedRows = report.filter((line) => line.includes(',failed,')).length;
      await cli(
        dir,
        ['--target', 'remote', 'schedule', 'push', '--file', 'r.csv', '--only-failed'],
        { isTTY: true, confirm, openApi: async () => null },
        env,
      );
      expect(lineWith(questions[1]!, 'plan: ', '1 to send', `(${failedRows} candidate`)).toBeTruthy();
    });
  });

  it('--target local wins over a configured base URL', async () => {
    await withTempDir(async (dir) => {
      const { stdout } = await cli(
        dir,
        ['--target', 'local', 'user', 'sync', '--file', join(FIXTURES, 'users.csv'), '--dry-run', '--json'],
        {},
        { EXAMCTL_BASE_URL: 'https://x.example.test' },
      );
      expect(JSON.parse(stdout).target.kind).toBe('local');
    });
  });
});
