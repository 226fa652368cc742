/**
 * The bad-input cases of --map, --map-file, --set, --date-format and --timezone: each is exit 2
 * before anything is read (the file named does not even exist) and names the flag; and the
 * messages that teach the fix.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { usersAfterResume } from '../support/stopped-run.js';

async function run(dir: string, args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const io = testDeps(dir);
  const code = await runCli(['--store', join(dir, 'store'), ...args], io.deps);
  return { code, stderr: io.stderr.text, stdout: io.stdout.text };
}

/** A --file that does not exist: a flag problem must be found before the file is read. */
const MISSING = ['--file', 'not-there.csv', '--dry-run'];

describe('bad input flags: exit 2 before anything is read, naming the flag', () => {
  const cases: [string, string[], string][] = [
    [
      'an unknown --date-format token',
      ['user', 'sync', ...MISSING, '--date-format', 'DD.MM.YY'],
      '--date-format DD.MM.YY: unknown token "YY"',
    ],
    [
      'an unknown zone',
      ['user', 'sync', ...MISSING, '--timezone', 'Europe/Atlantis'],
      '--timezone: unknown time zone "Europe/Atlantis"',
    ],
    [
      'a --set value its rule refuses',
      ['user', 'sync', ...MISSING, '--set', 'Email=a@stud.uni-example,de'],
      '--set Email=a@stud.uni-example,de: Email is not a valid address: "," at position 19',
    ],
    [
      'a --set boolean that is none',
      ['user', 'sync', ...MISSING, '--set', 'EnableReadSpeaker=maybe'],
      '--set EnableReadSpeaker=maybe: EnableReadSpeaker must be true/false',
    ],
    [
      'a --set date that is not real',
      ['user', 'sync', ...MISSING, '--set', 'DateOfBirth=31.04.2000', '--date-format', 'DD.MM.YYYY'],
      '"31.04.2000" is not a real date',
    ],
    [
      'a --set of a secret',
      ['user', 'sync', ...MISSING, '--set', 'Password=hunter22'],
      '--set Password: Password is a secret',
    ],
    ['a --set without =', ['user', 'sync', ...MISSING, '--set', 'Role'], '--set "Role": expected Field=value'],
    ['a --set of an empty value', ['user', 'sync', ...MISSING, '--set', 'Role='], '--set Role=: no value'],
    [
      'a map onto a field the command does not take',
      ['user', 'sync', ...MISSING, '--map', 'Exam start=StartDateTime'],
      '--map "Exam start=StartDateTime": user sync takes no field StartDateTime',
    ],
    [
      'a map onto an unknown field',
      ['user', 'sync', ...MISSING, '--map', 'Student ID=ExternlId'],
      '--map "Student ID=ExternlId": unknown field "ExternlId" (did you mean ExternalId?)',
    ],
    [
      'two columns onto one field',
      ['user', 'sync', ...MISSING, '--map', 'Student ID=ExternalId', '--map', 'Matrikel=externalid'],
      '"Student ID" (--map) and "Matrikel" both map onto ExternalId',
    ],
    [
      'one column onto two fields',
      ['user', 'sync', ...MISSING, '--map', 'Name=FirstName', '--map', 'Name=LastName'],
      '"Name" is mapped twice',
    ],
    [
      'a --set onto a field schedule push does not take',
      ['schedule', 'push', ...MISSING, '--set', 'Role=Candidate'],
      '--set Role: schedule push takes no field Role',
    ],
    [
      'a map on collection add onto a user field',
      ['collection', 'add', '--file', 'not-there.json', '--dry-run', '--map', 'Name=FirstName'],
      'collection add takes no field FirstName',
    ],
    [
      'a --start in the spring-forward gap',
      ['schedule', 'push', ...MISSING, '--timezone', 'Europe/Berlin', '--start', '2027-03-28 02:30'],
      '--start: StartDateTime "2027-03-28 02:30" does not exist in Europe/Berlin',
    ],
    [
      'a --schedule file whose local start the clocks skip',
      ['schedule', 'push', ...MISSING, '--timezone', 'Europe/Berlin', '--schedule', 'gap-schedule.json'],
      '--schedule gap-schedule.json: StartDateTime "2027-03-28 02:30" does not exist in Europe/Berlin',
    ],
    [
      'a --schedule file with a field no schedule has',
      ['schedule', 'push', ...MISSING, '--schedule', 'bogus-schedule.json'],
      '--schedule bogus-schedule.json: Unknown field "Bogus" in a schedule',
    ],
    [
      'a --schedule file whose start has no zone',
      ['schedule', 'push', ...MISSING, '--schedule', 'zoneless-schedule.json'],
      '--schedule zoneless-schedule.json: StartDateTime "2027-03-01T09:00:00" has no time zone: add Z or an offset such as +01:00, or give --timezone',
    ],
    [
      'the JSON itself as --schedule, not a file',
      ['schedule', 'push', ...MISSING, '--schedule', '{"ScheduleExtId":"S-X"}'],
      '--schedule takes the path of a file holding the JSON object, not the JSON itself',
    ],
    [
      'a --start in the autumn overlap',
      ['schedule', 'push', ...MISSING, '--timezone', 'America/New_York', '--start', '2027-11-07 01:30'],
      '--start: StartDateTime "2027-11-07 01:30" happens twice in America/New_York',
    ],
  ];
  it.each(cases)('%s', (_name, args, message) =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'gap-schedule.json'),
        JSON.stringify({ AssessmentExtId: 'A-1', StartDateTime: '2027-03-28 02:30' }),
      );
      await writeFile(
        join(dir, 'bogus-schedule.json'),
        JSON.stringify({ AssessmentExtId: 'A-1', StartDateTime: '2027-03-01T09:00:00Z', Bogus: 1 }),
      );
      await writeFile(
        join(dir, 'zoneless-schedule.json'),
        JSON.stringify({ AssessmentExtId: 'A-1', StartDateTime: '2027-03-01T09:00:00' }),
      );
      const { code, stderr } = await run(dir, args);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain('not-there');
    }),
  );

  it('a map file: two columns onto one field, a value that is not a field name, not an object, unreadable', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'two.json'),
        JSON.stringify({ 'Student ID': 'ExternalId', Matrikelnummer: 'ExternalId' }),
      );
      await writeFile(join(dir, 'number.json'), JSON.stringify({ 'Student ID': 7 }));
      await writeFile(join(dir, 'array.json'), '["Student ID"]');
      expectCoded(
        (await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'two.json'])).stderr,
        'E2100',
        '--map-file two.json:1',
        '"Student ID"',
        '"Matrikelnummer"',
        'ExternalId',
      );
      expectCoded(
        (await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'number.json'])).stderr,
        'E2100',
        '--map-file number.json:1: "Student ID"',
        'field name',
      );
      expectCoded(
        (await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'array.json'])).stderr,
        'E2100',
        '--map-file array.json',
        'JSON object',
      );
      const missing = await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'nope.json']);
      expect(missing.code).toBe(2);
      expectCoded(missing.stderr, 'E2101', '--map-file nope.json', 'no such file');
      // --json: an input-file error whose `file` is the map file, never the flag's words (docs/ci.md, `kind`).
      const json = await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'nope.json', '--json']);
      expect(JSON.parse(json.stdout).error).toMatchObject({
        code: 'E2101',
        kind: 'input-file',
        file: join(dir, 'nope.json'),
      });
      // A flag for the same field overrides the file's map rather than clashing with it.
      await writeFile(
        join(dir, 'users.csv'),
        'Student ID,Matrikel,FirstName,LastName,Email,UserName,Role\nS-1,M-1,Ann,Lee,ann@example.test,ann,Candidate\n',
      );
      await writeFile(join(dir, 'one.json'), JSON.stringify({ 'Student ID': 'ExternalId' }));
      const overridden = await run(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--map-file',
        'one.json',
        '--map',
        'Matrikel=ExternalId',
        '--ignore-unknown-columns',
        '--dry-run',
        '--json',
      ]);
      expect(overridden.code, overridden.stderr).toBe(0);
      expect(JSON.parse(overridden.stdout).items[0].id).toBe('M-1');
    }));

  it('a bad map file with a file that is there: a dry run refuses it as a real run does, with no summary and no report', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), 'Student ID,FirstName,LastName\nS-1,Ann,Lee\n');
      await writeFile(join(dir, 'number.json'), JSON.stringify({ 'Student ID': 7 }));
      for (const dryRun of [['--dry-run'], []]) {
        const { code, stdout, stderr } = await run(dir, [
          'user',
          'sync',
          '--file',
          'users.csv',
          '--map-file',
          'number.json',
          '--report',
          'report.json',
          ...dryRun,
        ]);
        expect(code, stderr).toBe(2);
        expect(stderr).toContain('--map-file number.json:1: "Student ID": must be an API field name');
        // No "0 items" summary of a run that never read its input, and no report file of it.
        expect(stderr).not.toMatch(/items:/);
        expect(stdout).toBe('');
        await expect(readFile(join(dir, 'report.json'))).rejects.toThrow(/ENOENT/);
      }
    }));

  it('a map file with a key given twice is refused like --map twice, not the last kept', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'dup.json'),
        '{"Student ID":"ExternalId",\n "Mobile":"CellularPhone",\n "Mobile":"PhoneNumber"}',
      );
      const { code, stderr } = await run(dir, ['user', 'sync', ...MISSING, '--map-file', 'dup.json']);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain('--map-file dup.json:3: "Mobile" is mapped twice (first on line 2)');
      expect(stderr).not.toContain('not-there');
    }));

  it("a map file shared with another command: entries onto the other command's fields are left out in one stderr line; an unknown field is refused", () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'map.json'),
        JSON.stringify({
          'Student ID': 'ExternalId',
          'Given name': 'FirstName',
          Surname: 'LastName',
          Mobile: 'CellularPhone',
        }),
      );
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,Given name,Surname,Email\nc-1,Ann,Lee,ann@example.test\n');
      const base = [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--schedule-id',
        'S-1',
        '--assessment',
        'A-1',
        '--group',
        'G-1',
        '--group-name',
        'G',
        '--start',
        '2027-01-25T14:00:00Z',
        '--dry-run',
      ];
      const shared = await run(dir, [...base, '--map-file', 'map.json', '--json']);
      expect(shared.code, shared.stderr).toBe(0);
      expect(shared.stderr.split('\n').filter((line) => line.includes('left out'))).toEqual([
        '--map-file map.json: left out, schedule push takes no such field: "Student ID" -> ExternalId, "Mobile" -> CellularPhone',
      ]);
      expect(JSON.parse(shared.stdout).items[0].errors).toEqual([]);
      await writeFile(join(dir, 'typo.json'), JSON.stringify({ 'Given name': 'FirstNam' }));
      const typo = await run(dir, [...base, '--map-file', 'typo.json']);
      expect(typo.code).toBe(2);
      expectCoded(typo.stderr, 'E2100', '--map-file typo.json:1 "Given name"', 'FirstName?');
      // A --map flag onto another command's field stays exit 2 (the rule).
      expect((await run(dir, [...base, '--map', 'Student ID=ExternalId'])).code).toBe(2);
    }));

  it('a profile with a bad timezone or date format names the profile key', () =>
    withTempDir(async (dir) => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(dir, '.config'));
      await writeFile(
        join(dir, '.config', 'config.json'),
        JSON.stringify({
          version: 1,
          profiles: { sis: { baseUrl: 'https://exam.example.test', defaults: { timezone: 'Mars/Olympus' } } },
        }),
        { mode: 0o600 },
      );
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 't' });
      expect(await runCli(['--profile', 'sis', 'user', 'sync', ...MISSING], io.deps)).toBe(2);
      expectCoded(io.stderr.text, 'E2000', 'profile sis: timezone', '"Mars/Olympus"');
    }));
});

describe('messages that teach the fix', () => {
  it('unknown columns: each with its likely field and the --map flags that read them', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'sis.csv'),
        'Student ID;Given name;Surname;Email;Mobile;Shoe size\nS-1;Ann;Lee;ann@example.test;+1 555;42\n',
      );
      const { code, stderr } = await run(dir, ['user', 'sync', '--file', 'sis.csv', '--dry-run']);
      expect(code).toBe(2);
      // Each unknown column with its likely field, the --map that reads it, and the way to skip them.
      expectCoded(
        stderr,
        'E2100',
        'sis.csv:1: ',
        '"Student ID" (likely ExternalId)',
        '"Shoe size"',
        '--map "Student ID=ExternalId" --map "Given name=FirstName" --map Surname=LastName --map Mobile=CellularPhone',
        '--ignore-unknown-columns',
      );
    }));

  it('every unknown column with a likely field gets its --map, also past the 10 listed', () =>
    withTempDir(async (dir) => {
      const extra = Array.from({ length: 10 }, (_, i) => `Note ${i + 1}`);
      await writeFile(
        join(dir, 'sis.csv'),
        `${[...extra, 'ExternalId', 'Given name', 'Surname', 'Mobile'].join(',')}\n${[...extra.map(() => 'x'), 'S-1', 'Ann', 'Lee', '+1 555'].join(',')}\n`,
      );
      const { code, stderr } = await run(dir, ['user', 'sync', '--file', 'sis.csv', '--dry-run']);
      expect(code).toBe(2);
      expect(stderr).toContain('… and 3 more');
      for (const map of ['--map "Given name=FirstName"', '--map Surname=LastName', '--map Mobile=CellularPhone'])
        expect(stderr).toContain(map);
    }));

  it('JSON keys that are no field: the record fails with the likely field and the --map flags; --ignore-unknown-columns skips them', () =>
    withTempDir(async (dir) => {
      const records = [
        {
          ExternalId: 'J-1',
          FirstName: 'Ann',
          LastName: 'Lee',
          Email: 'ann@example.test',
          UserName: 'ann',
          Role: 'Candidate',
          phone: '+1 555',
          campus: 'x',
        },
        {
          ExternalId: 'J-2',
          FirstName: 'Bo',
          LastName: 'Ng',
          Email: 'bo@example.test',
          UserName: 'bo',
          Role: 'Candidate',
          campus: 'y',
        },
      ];
      await writeFile(join(dir, 'export.json'), JSON.stringify(records, null, 1));
      await writeFile(join(dir, 'export.ndjson'), records.map((record) => JSON.stringify(record)).join('\n'));
      const refused = await run(dir, ['user', 'sync', '--file', 'export.json', '--dry-run', '--json']);
      expect(refused.code).toBe(1);
      const items = JSON.parse(refused.stdout).items as { errors: { field: string; message: string }[] }[];
      expect(items[0]!.errors).toEqual([expect.objectContaining({ field: 'phone', code: 9013 })]);
      expect(items[0]!.errors[0]!.message).toMatch(/"phone" \(likely PhoneNumber\), "campus"/);
      expect(items[0]!.errors[0]!.message).toContain('--map phone=PhoneNumber');
      // A key mapped onto a field the record also gives: the record fails on that field, 9012.
      await writeFile(join(dir, 'twice.json'), JSON.stringify([{ ...records[1], campus: undefined, Given: 'Bo' }]));
      const twice = await run(dir, [
        'user',
        'sync',
        '--file',
        'twice.json',
        '--map',
        'Given=FirstName',
        '--dry-run',
        '--json',
      ]);
      expect(twice.code).toBe(1);
      expect(JSON.parse(twice.stdout).items[0].errors).toEqual([
        expect.objectContaining({ field: 'FirstName', code: 9012 }),
      ]);
      expect(items[1]!.errors[0]!.message).toContain('unknown key: "campus"; use --map "key=Field"');
      for (const file of ['export.json', 'export.ndjson']) {
        const skipped = await run(dir, [
          'user',
          'sync',
          '--file',
          file,
          '--dry-run',
          '--json',
          '--ignore-unknown-columns',
          '--map',
          'phone=PhoneNumber',
        ]);
        expect(skipped.code, skipped.stderr).toBe(0);
        expect((JSON.parse(skipped.stdout).items as { errors: unknown[] }[]).map((item) => item.errors)).toEqual([
          [],
          [],
        ]);
      }
      // Sent: the mapped key arrives as its field, the skipped one not at all.
      expect(
        (
          await run(dir, [
            'user',
            'sync',
            '--file',
            'export.json',
            '--ignore-unknown-columns',
            '--map',
            'phone=PhoneNumber',
          ])
        ).code,
      ).toBe(0);
      const shown = testDeps(dir);
      await runCli(['--store', join(dir, 'store'), 'local', 'export', '--json'], shown.deps);
      const users = (JSON.parse(shown.stdout.text) as { Users: Record<string, unknown>[] }).Users.filter((user) =>
        String(user.ExternalId).startsWith('J-'),
      );
      expect(users.map((user) => [user.ExternalId, user.PhoneNumber, 'campus' in user])).toEqual([
        ['J-1', '+1 555', false],
        ['J-2', undefined, false],
      ]);
    }));

  it("user sync help says --file takes the export's own names with --map: one line in --help, in full with --all", () =>
    withTempDir(async (dir) => {
      const help = await run(dir, ['user', 'sync', '--help']);
      expect(help.stdout.replace(/\s+/g, ' ')).toContain('--map <column=Field> read a column as an API field');
      const all = await run(dir, ['help', 'user', 'sync', '--all']);
      expect(all.stdout.replace(/\s+/g, ' ')).toContain("or the export's own names read with --map/--map-file");
    }));

  it('a column already there is not suggested twice; a near spelling still gets "did you mean"', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sis.csv'), 'ExternalId,Student ID,FirstNme,LastName\nS-1,S-1,Ann,Lee\n');
      const { stderr } = await run(dir, ['user', 'sync', '--file', 'sis.csv', '--dry-run']);
      expect(stderr).toContain('"Student ID", "FirstNme" (did you mean "FirstName"?); use --map "Column=Field"');
    }));

  it('a local date without --date-format fails its record with the format it looks like; with it the row is good', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role,DateOfBirth\nS-1,Ann,Lee,ann@example.test,ann,Candidate,15.07.2000\n',
      );
      const refused = await run(dir, ['user', 'sync', '--file', 'users.csv', '--dry-run', '--json']);
      expect(refused.code).toBe(1);
      const problem = JSON.parse(refused.stdout).items[0].errors[0];
      expect(problem).toMatchObject({
        field: 'DateOfBirth',
        code: 246,
        message: expect.stringContaining('it looks like DD.MM.YYYY: give --date-format DD.MM.YYYY'),
      });
      expect(
        (await run(dir, ['user', 'sync', '--file', 'users.csv', '--dry-run', '--date-format', 'DD.MM.YYYY'])).code,
      ).toBe(0);
    }));

  it('--set fills a missing column and an empty cell, never a value the file has', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,UserName,Role\nS-1,Ann,Lee,ann@example.test,ann,\nS-2,Bo,Ng,bo@example.test,bo,Author\n',
      );
      const { code, stderr } = await run(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--set',
        'Role=Candidate',
        '--set',
        'Labels=sis|2027',
      ]);
      expect(code, stderr).toBe(0);
      const shown = testDeps(dir);
      await runCli(['--store', join(dir, 'store'), 'local', 'export', '--json'], shown.deps);
      const users = (
        JSON.parse(shown.stdout.text) as { Users: { ExternalId: string; Role: string; Labels?: string[] }[] }
      ).Users;
      expect(users.filter((u) => u.ExternalId.startsWith('S-')).map((u) => [u.ExternalId, u.Role, u.Labels])).toEqual([
        ['S-1', 'Candidate', ['sis', '2027']],
        ['S-2', 'Author', ['sis', '2027']],
      ]);
    }));

  it('without --timezone a --start without an offset is refused as today (exit 2, naming --timezone); with it, placed in the zone', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'c.csv'), 'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,Lee,ann@example.test\n');
      const base = [
        'schedule',
        'push',
        '--file',
        'c.csv',
        '--schedule-id',
        'S-1',
        '--assessment',
        'A-1',
        '--group',
        'G-1',
        '--group-name',
        'G',
        '--dry-run',
        '--json',
      ];
      const refused = await run(dir, [...base, '--start', '2027-01-25 14:00']);
      expect(refused.code).toBe(2);
      expectCoded(refused.stderr, 'E2000', '--start', '"2027-01-25 14:00"', 'time zone', '--timezone');
      const placed = await run(dir, [...base, '--start', '2027-01-25 14:00', '--timezone', 'Europe/Berlin']);
      expect(placed.stdout).not.toContain('StartDateTime');
    }));
});

describe('review-session show -o csv in the dialect asked', () => {
  it("--delimiter ';' (BOM kept, CRLF) with --decimal-separator ',' writes the rows for Excel in a German locale; the default stays ','", () =>
    withTempDir(async (dir) => {
      expect(await runCli(['local', 'init', '--store', join(dir, 'store')], testDeps(dir).deps)).toBe(0);
      const comma = await run(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv']);
      const semicolon = await run(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--delimiter', ';']);
      expect(semicolon.code, semicolon.stderr).toBe(0);
      const header = (text: string) => text.replace(/^\ufeff/, '').split(/\r?\n/)[0] as string;
      expect(semicolon.stdout.charCodeAt(0)).toBe(0xfeff);
      expect(header(comma.stdout)).toContain(',');
      expect(header(semicolon.stdout)).toBe(header(comma.stdout).split(',').join(';'));
      expect(semicolon.stdout.split(/\r?\n/).length).toBe(comma.stdout.split(/\r?\n/).length);
      const tab = await run(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--delimiter', 'tab']);
      expect(header(tab.stdout)).toBe(header(comma.stdout).split(',').join('\t'));
      // ';' alone keeps the point (a UK officer who only wants ';'); --decimal-separator ',' is Excel in a German locale.
      const german = await run(dir, [
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--delimiter',
        ';',
        '--decimal-separator',
        ',',
      ]);
      expect(german.code, german.stderr).toBe(0);
      const { parse } = await import('csv-parse/sync');
      const score = (text: string, delimiter: string) => {
        const [head, ...rows] = parse(text.replace(/^\ufeff/, ''), { delimiter }) as string[][];
        return rows.map((row) => row[head!.indexOf('Score')]);
      };
      expect(score(german.stdout, ';')).toContain('87,5');
      expect(score(german.stdout, ';')).not.toContain('87.5');
      expect(score(semicolon.stdout, ';')).toContain('87.5');
      expect(score(comma.stdout, ',')).toContain('87.5');
      expect(score(tab.stdout, '\t')).toContain('87.5');
      const bad = await run(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--delimiter', '|']);
      expect(bad.code).toBe(2);
    }));
});

describe('invigilators remove --map names the id column', () => {
  it('reads the mapped column of a CSV; a map onto another field is exit 2', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'staff.csv'), 'Name;Staff ID\nAnn Lee;inv-1\nBo Ng;inv-2\n');
      const unmapped = await run(dir, ['invigilators', 'remove', 'S-FUTURE', '--file', 'staff.csv', '--dry-run']);
      expect(unmapped.code).toBe(2);
      expect(unmapped.stderr).toContain('no id column');
      expect(unmapped.stderr).toContain('--map "Column=UserExtId"');
      const mapped = await run(dir, [
        'invigilators',
        'remove',
        'S-FUTURE',
        '--file',
        'staff.csv',
        '--map',
        'Staff ID=UserExtId',
        '--dry-run',
        '--json',
      ]);
      const items = (JSON.parse(mapped.stdout) as { items: { id: string; source: { line: number } }[] }).items;
      expect(items.map((item) => [item.id, item.source.line])).toEqual([
        ['inv-1', 2],
        ['inv-2', 3],
      ]);
      const wrong = await run(dir, [
        'invigilators',
        'remove',
        'S-FUTURE',
        '--file',
        'staff.csv',
        '--map',
        'Staff ID=ExternalId',
        '--dry-run',
      ]);
      expect(wrong.code).toBe(2);
      expectCoded(wrong.stderr, 'E2000', 'invigilators remove', 'ExternalId');
    }));
});

describe('a profile serves every command', () => {
  it("its map or --set onto another command's field is left out, not refused; an unknown field still is", () =>
    withTempDir(async (dir) => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(dir, '.config'));
      const profile = (defaults: unknown) =>
        writeFile(
          join(dir, '.config', 'config.json'),
          JSON.stringify({ version: 1, profiles: { sis: { baseUrl: 'https://exam.example.test', defaults } } }),
          { mode: 0o600 },
        );
      await writeFile(
        join(dir, 'users.csv'),
        'Student ID,FirstName,LastName,Email,UserName\nS-1,Ann,Lee,ann@example.test,ann\n',
      );
      await profile({
        map: { 'Student ID': 'ExternalId', Exam: 'AssessmentExtId' },
        set: { Role: 'Candidate', GroupExtId: 'G-1' },
      });
      const io = testDeps(dir, {}, { EXAMCTL_TOKEN: 't' });
      expect(
        await runCli(['--profile', 'sis', 'user', 'sync', '--file', 'users.csv', '--dry-run'], io.deps),
        io.stderr.text,
      ).toBe(0);
      await profile({ map: { 'Student ID': 'ExternId' } });
      const bad = testDeps(dir, {}, { EXAMCTL_TOKEN: 't' });
      expect(await runCli(['--profile', 'sis', 'user', 'sync', '--file', 'users.csv', '--dry-run'], bad.deps)).toBe(2);
      expectCoded(bad.stderr.text, 'E2000', 'profile sis: map "Student ID=ExternId"', '"ExternId"', 'ExternalId?');
    }));
});

describe('docs/input-formats.md, "Worked example"', () => {
  it('the first dry run of the SIS export prints what the doc shows', () =>
    withTempDir(async (dir) => {
      const { readFile } = await import('node:fs/promises');
      const doc = await readFile(join(__dirname, '../../docs/input-formats.md'), 'utf8');
      const block = /```console\n\$ examctl user sync --file students.csv --dry-run\n(.*)\n```/.exec(doc);
      expect(block).not.toBeNull();
      const csv = /```text\n(Student ID;[^\n]*\n[^\n]*)\n```/.exec(doc)![1]!;
      await writeFile(join(dir, 'students.csv'), `\ufeff${csv.replace(/\n/g, '\r\n')}\r\n`);
      const { code, stderr } = await run(dir, ['user', 'sync', '--file', 'students.csv', '--dry-run']);
      expect(code).toBe(2);
      expect(stderr.trim().split('\n').at(-1)).toBe(block![1]);
    }));
});

describe('runs resume of a mapped run', () => {
  it('a user sync stopped before it sent resumes while the job sets EXAMCTL_PIN for its sittings step (trial28 f06)', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'u.csv'),
        'ExternalId,FirstName,LastName,Email,Role\nu-9,Ann,Lee,ann@example.test,Candidate\n',
      );
      const users = await usersAfterResume(dir, { file: join(dir, 'u.csv') }, { EXAMCTL_PIN: '4821' });
      expect(users.map((user) => user.ExternalId)).toContain('u-9');
    }));

  it('replays --map-file, --map, --set and --date-format from the journal', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'export.csv'),
        '\ufeffStudent ID;Given name;Surname;E-Mail;Date of birth\r\nS-9;Ann;Lee;ann@example.test;15.07.2000\r\n',
      );
      await writeFile(join(dir, 'map.json'), JSON.stringify({ 'Student ID': 'ExternalId', Surname: 'LastName' }));
      // A run started with the flags and stopped before it sent anything.
      const users = await usersAfterResume(dir, {
        file: join(dir, 'export.csv'),
        mapFile: 'map.json',
        map: ['Given name=FirstName'],
        set: ['Role=Candidate'],
        dateFormat: 'DD.MM.YYYY',
      });
      const user = users.find((u) => u.ExternalId === 'S-9');
      expect(user).toMatchObject({ FirstName: 'Ann', LastName: 'Lee', Role: 'Candidate', DateOfBirth: '2000-07-15' });
    }));
});
