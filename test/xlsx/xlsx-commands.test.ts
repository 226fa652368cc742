import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { runCli } from '../../src/cli/run-cli.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook, xlsxFixture } from './helpers.js';
import { onTarget } from '../support/target-flags.js';
import { expectCoded } from '../support/coded-message.js';

/** Runs examctl in-process; bytes written to stdout (a workbook) are collected apart from the text. */
async function cli(dir: string, argv: string[], overrides: Partial<CommandDeps> = {}) {
  const bytes: Buffer[] = [];
  const stdoutBytes = new PassThrough();
  stdoutBytes.on('data', (chunk: Buffer) => bytes.push(chunk));
  const io = testDeps(dir, { stdoutBytes, ...overrides });
  const code = await runCli(onTarget(['--store', join(dir, 'store')], argv), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text, bytes: Buffer.concat(bytes) };
}

type Item = {
  source: { file: string; line: number };
  id: string | null;
  status: string;
  errors: { field: string; code: number | null; message: string; line?: number }[];
  warnings?: { field: string; message: string }[];
};

async function sheetRows(path: string | Buffer, sheet = 0): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  if (typeof path === 'string') await workbook.xlsx.readFile(path);
  else await workbook.xlsx.load(path.buffer.slice(path.byteOffset, path.byteOffset + path.byteLength) as ArrayBuffer);
  const rows: string[][] = [];
  (workbook.worksheets[sheet] as ExcelJS.Worksheet).eachRow((row) => {
    rows.push(
      (row.values as unknown[]).slice(1).map((value) => (value === undefined || value === null ? '' : String(value))),
    );
  });
  return rows;
}

const USER_HEADER = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role', 'PhoneNumber'];

describe('a cell examctl could not read, fed back', () => {
  it('the CSV and .xlsx reports give it back (as shown, or a spreadsheet error), and --only-failed fails the row again until it is typed: never sent without it', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'dob.xlsx');
      await writeWorkbook(input, [
        {
          name: 'Users',
          rows: [
            ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role', 'DateOfBirth', 'CellularPhone'],
            [
              'u-dob-1',
              'Hana',
              'Sato',
              'hana(at)x.example',
              'Candidate',
              { value: new Date(Date.UTC(2004, 4, 6, 8, 15)), numFmt: 'yyyy-mm-dd hh:mm' },
              null,
            ],
            [
              'u-dob-2',
              'Ivo',
              'Kral',
              'ivo(at)x.example',
              'Candidate',
              { value: new Date(Date.UTC(2003, 1, 1)), numFmt: 'yyyy-mm-dd' },
              12345678901234567890,
            ],
          ],
        },
      ]);
      for (const report of ['r.xlsx', 'r.csv']) {
        expect((await cli(dir, ['user', 'sync', '--file', input, '--report', join(dir, report)])).code, report).toBe(1);
        // The admin fixes what the errors name first, the e-mails, and sends the report back as it is otherwise.
        const fixed = join(dir, `fixed-${report}`);
        if (report.endsWith('.csv')) {
          const text = await readFile(join(dir, report), 'utf8');
          expect(text).toContain(',2004-05-06T08:15:00,');
          expect(text).toContain(',#NUM!,');
          await writeFile(
            fixed,
            text.replace('hana(at)x.example', 'hana@x.example').replace('ivo(at)x.example', 'ivo@x.example'),
          );
        } else {
          const rows = await sheetRows(join(dir, report));
          expect(rows[1]![5]).toBe('2004-05-06T08:15:00');
          expect(rows[2]![6]).toBe('#NUM!');
          const workbook = new ExcelJS.Workbook();
          await workbook.xlsx.readFile(join(dir, report));
          const sheet = workbook.worksheets[0]!;
          sheet.getCell('D2').value = 'hana@x.example';
          sheet.getCell('D3').value = 'ivo@x.example';
          await workbook.xlsx.writeFile(fixed);
        }
        const retry = await cli(dir, ['user', 'sync', '--file', fixed, '--only-failed', '--json']);
        expect(retry.code, report).toBe(1);
        const items = JSON.parse(retry.stdout).items as Item[];
        expect(
          items.map((item) => [item.id, item.status, item.errors.map((error) => error.field)]),
          report,
        ).toEqual([
          ['u-dob-1', 'failed', ['DateOfBirth']],
          ['u-dob-2', 'failed', ['CellularPhone']],
        ]);
        expect(items[1]!.errors[0]!.message).toContain('CellularPhone');
        expect(items[1]!.errors[0]!.message).toContain('#NUM!');
      }
      const users = JSON.parse((await cli(dir, ['local', 'export'])).stdout).Users as { ExternalId: string }[];
      expect(users.filter((user) => user.ExternalId.startsWith('u-dob'))).toEqual([]);
    });
  });
});

describe('.xlsx input in the commands', () => {
  it('an unreadable cell fails only its record, named by file[sheet]:row, cell and field', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, [
        'user',
        'sync',
        '--file',
        xlsxFixture('users-openpyxl.xlsx'),
        '--dry-run',
        '--json',
      ]);
      expect(code).toBe(1);
      const items = JSON.parse(stdout).items as Item[];
      expect(items.map((i) => `${i.source.line}:${i.id}:${i.status}`)).toEqual([
        '2:00456:ok',
        '3:789:failed',
        '5:u-5:failed',
        '6:u-6:failed',
      ]);
      expect(items[0]!.source.file).toMatch(/users-openpyxl\.xlsx\[Users\]$/);
      expect(items[2]!.errors.map((e) => `${e.field}: ${e.message.slice(0, 8)}`)).toEqual([
        'LastName: cell C5:',
        'Company: cell J5:',
      ]);
      expect(items[3]!.errors).toEqual([
        expect.objectContaining({ field: 'DateOfBirth', message: expect.stringContaining('cell I6') }),
      ]);
    });
  });

  it('--sheet takes a tab by name or by position; an unknown one is a usage error', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'two.xlsx');
      await writeWorkbook(path, [
        { name: 'Notes', rows: [['read me first']] },
        { name: 'Users', rows: [USER_HEADER, ['u-1', 'Ann', 'Lee', 'ann@example.test', 'Candidate']] },
      ]);
      for (const sheet of ['Users', '2']) {
        const { code, stdout } = await cli(dir, [
          'user',
          'sync',
          '--file',
          path,
          '--sheet',
          sheet,
          '--dry-run',
          '--json',
        ]);
        expect(code).toBe(0);
        expect(
          (JSON.parse(stdout).items as Item[]).map((i) => `${i.source.file.split('/').pop()}:${i.source.line}:${i.id}`),
        ).toEqual(['two.xlsx[Users]:2:u-1']);
      }
      const missing = await cli(dir, ['user', 'sync', '--file', path, '--sheet', 'Nope', '--dry-run']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('Nope');
    });
  });

  it('without --sheet, another visible sheet of the same columns (or most of them) refuses the file, naming the sheets and how to choose; nothing is sent', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'rooms.xlsx');
      const room = (n: number) => [`r-${n}`, 'R', `R${n}`, `r${n}@example.test`, 'Candidate'];
      await writeWorkbook(path, [
        { name: 'Room A', rows: [USER_HEADER.slice(0, 5), room(1), room(2)] },
        // Four of the five columns, one more of its own: the same kind of rows.
        { name: 'Room B', rows: [[...USER_HEADER.slice(0, 4), 'City'], room(3)] },
        { name: 'Old', rows: [USER_HEADER.slice(0, 5), room(4)], state: 'hidden' },
      ]);
      for (const dryRun of [[], ['--dry-run']]) {
        const refused = await cli(dir, ['user', 'sync', '--file', 'rooms.xlsx', ...dryRun]);
        expect(refused.code).toBe(2);
        expectCoded(
          refused.stderr,
          'E2100',
          'rooms.xlsx',
          '"Room A", "Room B"',
          '--sheet "Room A", then --sheet "Room B"',
        );
      }
      expect((await cli(dir, ['user', 'sync', '--file', 'rooms.xlsx', '--sheet', 'Room A', '--dry-run'])).code).toBe(0);
      // Nothing was sent by the refused runs: the store has no r-1.
      const sent = await cli(dir, ['user', 'sync', '--file', 'rooms.xlsx', '--sheet', 'Room B', '--json']);
      expect((JSON.parse(sent.stdout).items as Item[]).map((i) => i.id)).toEqual(['r-3']);
    });
  });

  it('without --sheet, other sheets of other columns (lists, notes) are named once on stderr as not read', async () => {
    await withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'users.xlsx'), [
        { name: 'Users', rows: [USER_HEADER.slice(0, 5), ['u-1', 'Ann', 'Lee', 'ann@example.test', 'Candidate']] },
        {
          name: 'Lists',
          rows: [
            ['Role', 'Meaning'],
            ['Candidate', 'sits exams'],
          ],
        },
        { name: 'Notes', rows: [['read me first']] },
      ]);
      const note =
        'note: users.xlsx: read the sheet "Users"; not read: "Lists", "Notes" (other columns; --sheet NAME reads another)';
      // A real run reads the file twice (structure, then records): the note is said once.
      const run = await cli(dir, ['user', 'sync', '--file', 'users.xlsx']);
      expect(run.code).toBe(0);
      expect(run.stderr.split(note).length - 1).toBe(1);
      const chosen = await cli(dir, ['user', 'sync', '--file', 'users.xlsx', '--sheet', 'Users', '--dry-run']);
      expect(chosen.stderr).not.toContain('not read');
      await writeWorkbook(join(dir, 'ids.xlsx'), [
        { name: 'Staff', rows: [['UserExtId'], ['inv-2']] },
        { name: 'Notes', rows: [['who leaves when']] },
      ]);
      const removal = await cli(dir, ['invigilators', 'remove', 'S-FUTURE', '--file', 'ids.xlsx', '--dry-run']);
      expect(removal.stderr).toContain(
        'note: ids.xlsx: read the sheet "Staff"; not read: "Notes" (other columns; --sheet NAME reads another)',
      );
      // An empty first sheet (a cover): the sheets with rows are named, with --sheet for each.
      await writeWorkbook(join(dir, 'covered.xlsx'), [
        { name: 'Cover', rows: [] },
        { name: 'Users', rows: [USER_HEADER.slice(0, 5), ['u-1', 'Ann', 'Lee', 'ann@example.test', 'Candidate']] },
      ]);
      const covered = await cli(dir, ['user', 'sync', '--file', 'covered.xlsx', '--dry-run']);
      expect(covered.code).toBe(2);
      expectCoded(covered.stderr, 'E2100', 'covered.xlsx', '"Cover"', '--sheet "Users"');
    });
  });

  it('date-time cells are refused without --timezone and converted with it, daylight saving included', async () => {
    await withTempDir(async (dir) => {
      const sittings = xlsxFixture('sittings-openpyxl.xlsx');
      const without = JSON.parse(
        (await cli(dir, ['schedule', 'push', '--file', sittings, '--dry-run', '--json'])).stdout,
      ).items as Item[];
      // One field path for both formats: the reader's problem is on Schedule.StartDateTime, as a CSV value's is.
      expect(without[0]!.errors[0]).toEqual(
        expect.objectContaining({ field: 'Schedule.StartDateTime', message: expect.stringContaining('--timezone') }),
      );
      // The reader's problem is the one said: no "is required" repeating it under Schedule.StartDateTime.
      expect(without[0]!.errors.map((e) => e.field)).toEqual(['Schedule.StartDateTime', 'Schedule.EndDateTime']);

      const zoned = await cli(dir, [
        'schedule',
        'push',
        '--file',
        sittings,
        '--timezone',
        'Europe/Paris',
        '--dry-run',
        '--json',
      ]);
      const items = JSON.parse(zoned.stdout).items as Item[];
      expect(items[0]!.errors.some((e) => e.field.endsWith('StartDateTime'))).toBe(false);
      expect(items[2]!.errors.map((e) => e.message)).toEqual([
        expect.stringContaining('does not exist in Europe/Paris'),
      ]);
      expect(items[3]!.errors.map((e) => e.message)).toEqual([
        expect.stringContaining('happens twice in Europe/Paris'),
      ]);

      const unknown = await cli(dir, ['schedule', 'push', '--file', sittings, '--timezone', 'Mars/Base', '--dry-run']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown time zone "Mars/Base"');
    });
  });

  it('invigilators remove reads the UserExtId column of a workbook', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'ids.xlsx');
      await writeWorkbook(path, [
        {
          name: 'Invigilators',
          rows: [
            ['UserExtId', 'Note'],
            ['inv-2', 'leaves'],
            ['no-such-user', ''],
          ],
        },
      ]);
      const { stdout } = await cli(dir, [
        'invigilators',
        'remove',
        'S-FUTURE',
        '--file',
        'ids.xlsx',
        '--dry-run',
        '--json',
      ]);
      const items = JSON.parse(stdout).items as Item[];
      expect(items.map((i) => `${i.source.file}:${i.source.line}:${i.id}`)).toEqual([
        'ids.xlsx[Invigilators]:2:inv-2',
        'ids.xlsx[Invigilators]:3:no-such-user',
      ]);
    });
  });
});

describe('warnings in the run report, whatever the input format', () => {
  it('a CSV value in exponent form and a lost character: JSON items, the summary and the xlsx warnings column', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(
        input,
        `${USER_HEADER.join(',')}\nu-1,Fran?ois,Garc?a,jose@example.test,Candidate,1.23457E+18\nu-2,Ann,Lee,ann@example.test,Candidate,0612345678\n`,
      );
      const { code, stdout, stderr } = await cli(dir, [
        'user',
        'sync',
        '--file',
        input,
        '--json',
        '--report',
        'report.xlsx',
      ]);
      expect(code).toBe(0);
      const items = JSON.parse(stdout).items as Item[];
      expect(items[0]!.warnings?.map((w) => w.field)).toEqual(['FirstName', 'LastName', 'PhoneNumber']);
      expect(items[1]).not.toHaveProperty('warnings');
      expect(stderr).toContain('3 warnings');
      expect(stderr).toMatch(/users\.csv:2 \[u-1\] PhoneNumber "1\.23457E\+18" .*exponent form/);
      const rows = await sheetRows(join(dir, 'report.xlsx'));
      expect(rows[0]).toEqual([
        ...USER_HEADER,
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
        'warnings',
      ]);
      expect(rows[1]!.at(-1)).toContain('PhoneNumber: ');
    });
  });
});

describe('warnings of a sitting name the row the value is on', () => {
  it('in the JSON item, the summary and the xlsx row, as the errors of its candidates do', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'sit.csv');
      const header =
        'ScheduleExtId,AssessmentExtId,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email,RegistrationNumber';
      const row = (candidate: string, registration: string) =>
        `S-W1,A-MATH-1,2027-03-01T09:00:00Z,2027-03-01T12:00:00Z,H-W1,Group W1,${candidate},Ann,Lee,${candidate}@example.test,${registration}`;
      await writeFile(input, `${header}\n${row('c-1', 'R-1')}\n${row('c-2', '1e5')}\n`);
      const { code, stdout, stderr } = await cli(dir, [
        'schedule',
        'push',
        '--file',
        input,
        '--json',
        '--report',
        'report.xlsx',
      ]);
      expect(code).toBe(0);
      const items = JSON.parse(stdout).items as (Item & { warnings?: { line?: number }[] })[];
      expect(items[0]!.warnings).toEqual([expect.objectContaining({ field: 'RegistrationNumber', line: 3 })]);
      expect(stderr).toMatch(/sit\.csv:3 \[S-W1\] RegistrationNumber "1e5"/);
      const rows = await sheetRows(join(dir, 'report.xlsx'));
      expect(rows[1]!.join(' ')).not.toContain('RegistrationNumber: ');
      expect(rows[2]!.at(-1)).toContain('RegistrationNumber: ');
    });
  });

  it('a PIN of three digits from a number cell says a number cell drops leading zeros; typed as text it does not', async () => {
    await withTempDir(async (dir) => {
      const header = [
        'ScheduleExtId',
        'AssessmentExtId',
        'Title',
        'StartDateTime',
        'EndDateTime',
        'GroupExtId',
        'GroupName',
        'PIN',
        'CandidateExtId',
        'FirstName',
        'LastName',
        'Email',
      ];
      const row = (pin: string | number) => [
        'S-PIN',
        'A-MATH-1',
        'Pin',
        '2027-06-10T09:00:00Z',
        '2027-06-10T12:00:00Z',
        'H-PIN',
        'Pin',
        pin,
        'pin-1',
        'P',
        'I',
        'pin1@x.example.test',
      ];
      const pinWarning = async (pin: string | number) => {
        await writeWorkbook(join(dir, 'pin.xlsx'), [{ name: 'Sittings', rows: [header, row(pin)] }]);
        const { code, stdout } = await cli(dir, ['schedule', 'push', '--file', 'pin.xlsx', '--dry-run', '--json']);
        expect(code).toBe(0);
        const items = JSON.parse(stdout).items as Item[];
        return items[0]!.warnings?.find((w) => w.field === 'Schedule.PIN')?.message;
      };
      // 0123 typed in a General cell is stored as 123.
      expect(await pinWarning(123)).toMatch(
        /^PIN is not four digits: .*; its cell was a number, and a number cell drops leading zeros: format the PIN column as text and type the PIN again$/,
      );
      const asText = await pinWarning('123');
      expect(asText).toMatch(/^PIN is not four digits/);
      expect(asText).not.toContain('number cell');
    });
  });
});

describe('the Excel loop: --report x.xlsx, fixed in another producer, --only-failed', () => {
  it('gives every value back exactly: 00456 stays 00456 and only the fixed row is sent again', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.xlsx');
      await writeWorkbook(input, [
        {
          name: 'Users',
          rows: [
            USER_HEADER,
            ['00456', 'Ann', 'Lee', 'ann@example.test', 'Candidate', '0612345678'],
            ['u 7', 'Bad', 'Id', 'bad@example.test', 'Candidate', '+33 6 12 34 56 78'],
          ],
        },
      ]);
      const first = await cli(dir, ['user', 'sync', '--file', input, '--report', 'result.xlsx']);
      expect(first.code).toBe(1);
      // Fixed with exceljs's in-memory workbook (not the streaming writer that wrote the report).
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(join(dir, 'result.xlsx'));
      const sheet = workbook.worksheets[0] as ExcelJS.Worksheet;
      expect(sheet.getRow(3).getCell(USER_HEADER.length + 1).value).toBe('failed');
      expect(sheet.views[0]).toEqual(expect.objectContaining({ state: 'frozen', ySplit: 1 }));
      sheet.getRow(3).getCell(1).value = 'u-7';
      await workbook.xlsx.writeFile(join(dir, 'result.xlsx'));

      const retry = await cli(dir, [
        'user',
        'sync',
        '--file',
        'result.xlsx',
        '--only-failed',
        '--report',
        'retry.xlsx',
        '--json',
      ]);
      expect(retry.code).toBe(0);
      const items = JSON.parse(retry.stdout).items as Item[];
      expect(items.map((i) => `${i.source.line}:${i.id}:${i.status}`)).toEqual(['3:u-7:ok']);
      // Only rows still needing work are listed: none, the header stays so the file is still input.
      expect(await sheetRows(join(dir, 'retry.xlsx'))).toEqual([
        [...USER_HEADER, 'status', 'error_codes', 'error_messages', 'action', 'note', 'run', 'warnings'],
      ]);

      const world = JSON.parse((await cli(dir, ['local', 'export'])).stdout) as {
        Users: { ExternalId: string; PhoneNumber?: string }[];
      };
      const ids = world.Users.map((u) => u.ExternalId);
      expect(ids).toEqual(expect.arrayContaining(['00456', 'u-7']));
      expect(ids).not.toContain('456');
      expect(world.Users.find((u) => u.ExternalId === '00456')?.PhoneNumber).toBe('0612345678');
      expect(world.Users.find((u) => u.ExternalId === 'u-7')?.PhoneNumber).toBe('+33 6 12 34 56 78');
    });
  });

  it('--only-failed on a workbook that is not a run report is refused before anything is sent', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.xlsx');
      await writeWorkbook(input, [
        { name: 'Users', rows: [USER_HEADER, ['u-1', 'Ann', 'Lee', 'ann@example.test', 'Candidate']] },
      ]);
      const { code, stderr } = await cli(dir, ['user', 'sync', '--file', input, '--only-failed']);
      expect(code).toBe(2);
      expect(stderr).toContain('no status column');
    });
  });
});

describe('template and schema', () => {
  it('template prints csv, json and xlsx files that the command accepts as they are', async () => {
    await withTempDir(async (dir) => {
      // A UTF-8 BOM first (Excel on Windows); the command reads it back all the same.
      expect((await cli(dir, ['template', 'users'])).stdout.startsWith('\uFEFFExternalId,')).toBe(true);
      const csv = await cli(dir, ['template', 'users', '--no-bom']);
      expect(csv.code).toBe(0);
      expect(csv.stdout.split(',')[0]).toBe('ExternalId');
      const json = await cli(dir, ['template', 'users', '-o', 'json']);
      await writeFile(join(dir, 'users.json'), json.stdout);
      expect((await cli(dir, ['user', 'sync', '--file', 'users.json', '--dry-run'])).code).toBe(0);

      const xlsx = await cli(dir, ['template', 'users', '-o', 'xlsx']);
      expect(xlsx.code).toBe(0);
      expect(xlsx.bytes.subarray(0, 2).toString()).toBe('PK');
      await writeFile(join(dir, 'users.xlsx'), xlsx.bytes);
      expect((await sheetRows(xlsx.bytes))[0]).toEqual(csv.stdout.trim().split(','));
      expect((await sheetRows(xlsx.bytes, 1))[0]?.[0]).toBe('Column');
      const asInput = await cli(dir, ['user', 'sync', '--file', 'users.xlsx', '--dry-run', '--json']);
      expect(asInput.code).toBe(0);
      expect(JSON.parse(asInput.stdout).summary.total).toBe(0);
      // Its "Columns" sheet describes the columns: not named as a sheet left unread.
      expect(asInput.stderr).not.toContain('not read');
    });
  });

  it('a workbook is refused on a terminal, an unknown kind is a usage error', async () => {
    await withTempDir(async (dir) => {
      const tty = await cli(dir, ['template', 'sittings', '-o', 'xlsx'], { stdoutIsTTY: true });
      expect(tty.code).toBe(2);
      expect(tty.bytes.length).toBe(0);
      expect(tty.stderr).toContain('> sittings.xlsx');
      expect(tty.stderr).toContain('--out <file>');
      const unknown = await cli(dir, ['schema', 'students']);
      expect(unknown.code).toBe(2);
      expectCoded(unknown.stderr, 'E2000', 'students', 'users', 'candidates', 'sittings', 'collection', 'invigilators');
    });
  });

  it('schema prints a JSON Schema 2020-12 document', async () => {
    await withTempDir(async (dir) => {
      const { code, stdout } = await cli(dir, ['schema', 'users']);
      expect(code).toBe(0);
      const schema = JSON.parse(stdout) as { $schema: string };
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    });
  });
});

describe('review-session show -o xlsx', () => {
  it('writes the results workbook, every cell text, the same rows as -o csv', async () => {
    await withTempDir(async (dir) => {
      await cli(dir, ['local', 'init']);
      const csv = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--no-bom']);
      const xlsx = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx']);
      expect(xlsx.code).toBe(0);
      expect(xlsx.stdout).toBe('');
      const rows = await sheetRows(xlsx.bytes);
      const csvRows = csv.stdout.trimEnd().split(/\r?\n/);
      expect(rows.length).toBe(csvRows.length);
      expect(rows[0]!.join(',')).toBe(csvRows[0]);
      const tty = await cli(dir, ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'xlsx'], { stdoutIsTTY: true });
      expect(tty.code).toBe(2);
      expect(tty.bytes.length).toBe(0);
    });
  });
});

describe('report files', () => {
  it('--report with another extension names the formats that work', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'u.csv'), `${USER_HEADER.join(',')}\n`);
      const { code, stderr } = await cli(dir, ['user', 'sync', '--file', 'u.csv', '--report', 'r.ods']);
      expect(code).toBe(2);
      for (const ending of ['r.ods', '.json', '.csv', '.xlsx', '.xml', '.html']) expect(stderr).toContain(ending);
      expect(await readFile(join(dir, 'u.csv'), 'utf8')).toContain('ExternalId');
    });
  });
});
