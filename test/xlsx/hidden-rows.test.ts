// Rows hidden among the data (a filter, or by hand) are refused unless --hidden-rows says which
// the admin means: acting on them without a word, or leaving them out without one, could both
// do what the admin did not mean (docs/input-formats.md, ".xlsx", "Hidden rows").
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { keptOptionNames } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { expectInputFileError } from '../input/helpers.js';
import { usersAfterResume } from '../support/stopped-run.js';
import { inTempDir, readAll, writeWorkbook } from './helpers.js';
import { workbookBytes } from './zip-writer.js';
import { lineWith } from '../support/facts.js';

const USER_HEADER = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role'];
const user = (n: number) => [`h-${n}`, 'H', `H${n}`, `h${n}@example.test`, 'Candidate'];

describe('the reader', () => {
  it('refuses a sheet with hidden data rows, naming the first five and counting the rest; a hidden blank row does not count', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      const rows = [USER_HEADER, ...Array.from({ length: 10 }, (_, i) => user(i + 2)), undefined, user(13)];
      await writeWorkbook(path, [{ name: 'Users', rows, hiddenRows: [3, 4, 6, 7, 8, 9, 10, 12] }]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'h.xlsx' }), {
        file: 'h.xlsx[Users]',
        line: undefined,
        reason:
          /^rows 3, 4, 6, 7, 8 and 2 more are hidden \(by a filter, or by hand\), and a hidden row is acted on as the others are: give --hidden-rows include to act on every row, hidden or not, or --hidden-rows skip to leave the hidden ones out$/,
      });
    });
  });

  it('a run report filtered on its status is told that skip acts on the rows shown', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'report.xlsx');
      await writeWorkbook(path, [
        {
          name: 'Users',
          rows: [
            [...USER_HEADER, 'status', 'error_codes', 'error_messages'],
            [...user(2), 'failed'],
            [...user(3), 'ok'],
          ],
          hiddenRows: [3],
        },
      ]);
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'report.xlsx' }), {
        file: 'report.xlsx[Users]',
        line: undefined,
        reason:
          /--hidden-rows skip to leave the hidden ones out \(a run report filtered on its status: --hidden-rows skip acts on the rows shown, and --only-failed sends none of its ok rows either way\)$/,
      });
    });
  });

  it('a row dragged to no height is hidden too (ht="0" with customHeight, no hidden attribute)', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'z.xlsx');
      // exceljs writes no height of 0: the part as Excel writes a row dragged shut.
      const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
      const row = (n: number, attributes = '') =>
        `<row r="${n}"${attributes}>${user(n)
          .map((text, i) => inline(`${'ABCDE'[i]}${n}`, text))
          .join('')}</row>`;
      const header = `<row r="1">${USER_HEADER.map((text, i) => inline(`${'ABCDE'[i]}1`, text)).join('')}</row>`;
      await writeFile(
        path,
        workbookBytes({ rows: `${header}${row(2)}${row(3, ' ht="0" customHeight="1"')}${row(4, ' ht="0"')}` }),
      );
      await expectInputFileError(readAll(path, { columns: USER_COLUMNS, displayName: 'z.xlsx' }), {
        file: 'z.xlsx[Sheet1]',
        line: undefined,
        reason: /^row 3 is hidden /,
      });
      const ids = (await readAll(path, { columns: USER_COLUMNS, hiddenRows: 'skip' })).map(
        (record) => record.fields['ExternalId'],
      );
      // A height of 0 without customHeight is Excel's default height written oddly: shown.
      expect(ids).toEqual(['h-2', 'h-4']);
    });
  });

  it('include reads every row; skip leaves the hidden ones out and says which', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'h.xlsx');
      await writeWorkbook(path, [{ name: 'Users', rows: [USER_HEADER, user(2), user(3), user(4)], hiddenRows: [3] }]);
      const ids = (records: { fields: Record<string, unknown> }[]) =>
        records.map((record) => record.fields['ExternalId']);
      expect(ids(await readAll(path, { columns: USER_COLUMNS, hiddenRows: 'include' }))).toEqual(['h-2', 'h-3', 'h-4']);
      const notes: string[] = [];
      const skipped = await readAll(path, {
        columns: USER_COLUMNS,
        displayName: 'h.xlsx',
        hiddenRows: 'skip',
        notice: (text) => void notes.push(text),
      });
      expect(ids(skipped)).toEqual(['h-2', 'h-4']);
      expect(notes).toEqual(['note: h.xlsx[Users]: row 3 left out, hidden (--hidden-rows skip)']);
    });
  });
});

describe('invigilators remove of a filtered sheet (Remove? = yes, the "no" rows hidden)', () => {
  // The demo world's S-FUTURE has the invigilators inv-1, inv-2 and inv-3.
  const staff = async (dir: string) => {
    expect(await runCli(['local', 'init', '--store', join(dir, 'store')], testDeps(dir).deps)).toBe(0);
    await writeWorkbook(join(dir, 'staff.xlsx'), [
      {
        name: 'Staff',
        rows: [
          ['UserExtId', 'Name', 'Remove?'],
          ['inv-1', 'Ivy', 'yes'],
          ['inv-2', 'Ian', 'no'],
        ],
        hiddenRows: [3],
      },
    ]);
  };
  const invigilators = async (dir: string): Promise<string[]> => {
    const io = testDeps(dir);
    await runCli(['--store', join(dir, 'store'), 'local', 'export', '--json'], io.deps);
    const schedules = (
      JSON.parse(io.stdout.text) as { Schedules: { ScheduleExtId: string; Invigilators?: string[] }[] }
    ).Schedules;
    return schedules.find((schedule) => schedule.ScheduleExtId === 'S-FUTURE')?.Invigilators ?? [];
  };
  const remove = async (dir: string, ...flags: string[]) => {
    const io = testDeps(dir);
    const code = await runCli(
      ['--store', join(dir, 'store'), 'invigilators', 'remove', 'S-FUTURE', '--file', 'staff.xlsx', ...flags],
      io.deps,
    );
    return { code, stderr: io.stderr.text, stdout: io.stdout.text };
  };

  it('is refused, dry run or not, naming the hidden row; nothing is removed', async () => {
    await withTempDir(async (dir) => {
      await staff(dir);
      for (const dryRun of [['--dry-run'], []]) {
        const refused = await remove(dir, ...dryRun);
        expect(refused.code).toBe(2);
        expectCoded(refused.stderr, 'E2100', 'staff.xlsx[Staff]', 'row 3', '--hidden-rows include');
      }
      expect(await invigilators(dir)).toEqual(expect.arrayContaining(['inv-1', 'inv-2']));
    });
  });

  it('--hidden-rows skip removes the rows shown; --hidden-rows include all of them', async () => {
    await withTempDir(async (dir) => {
      await staff(dir);
      const skipped = await remove(dir, '--hidden-rows', 'skip');
      expect(skipped.code).toBe(0);
      expect(lineWith(skipped.stderr, 'staff.xlsx[Staff]', 'row 3', '--hidden-rows skip')).toMatch(/^note: /);
      const left = await invigilators(dir);
      expect(left).not.toContain('inv-1');
      expect(left).toContain('inv-2');
      // inv-1 is gone already: --missing-ok keeps that from failing its item.
      expect((await remove(dir, '--hidden-rows', 'include', '--missing-ok')).code).toBe(0);
      expect(await invigilators(dir)).not.toContain('inv-2');
    });
  });
});

describe('a run read again reads the sheet as the run did', () => {
  it('--hidden-rows is kept by the journal of every resumable command that reads a file', () => {
    for (const command of COMMANDS.filter((declaration) => declaration.resume === 'rerun')) {
      expect(keptOptionNames(command).names, command.path.join(' ')).toContain('hiddenRows');
    }
  });

  it('runs resume of a user sync started with --hidden-rows skip leaves the hidden row out again', () =>
    withTempDir(async (dir) => {
      await writeWorkbook(join(dir, 'users.xlsx'), [
        { name: 'Users', rows: [USER_HEADER, user(2), user(3)], hiddenRows: [3] },
      ]);
      // A run started with the flag and stopped before it sent anything.
      const ids = (await usersAfterResume(dir, { file: join(dir, 'users.xlsx'), hiddenRows: 'skip' })).map(
        (u) => u.ExternalId,
      );
      expect(ids).toContain('h-2');
      expect(ids).not.toContain('h-3');
    }));
});

describe("a sheet's flags on a file without sheets", () => {
  it('--sheet or --hidden-rows with a CSV (records or an id list) is refused, naming the flag: never ignored', async () => {
    await withTempDir(async (dir) => {
      expect(await runCli(['local', 'init', '--store', join(dir, 'store')], testDeps(dir).deps)).toBe(0);
      await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n');
      await writeFile(join(dir, 'ids.csv'), 'UserExtId\ninv-1\n');
      for (const [argv, flag] of [
        [['user', 'sync', '--file', 'users.csv', '--sheet', '2', '--dry-run'], '--sheet'],
        [['user', 'sync', '--file', 'users.csv', '--hidden-rows', 'skip', '--dry-run'], '--hidden-rows'],
        [['invigilators', 'remove', 'S-FUTURE', '--file', 'ids.csv', '--sheet', 'Staff', '--dry-run'], '--sheet'],
      ] as const) {
        const io = testDeps(dir);
        const code = await runCli(['--store', join(dir, 'store'), ...argv], io.deps);
        expect(code, argv.join(' ')).toBe(2);
        expectCoded(io.stderr.text, 'E2100', flag, '.xlsx');
      }
    });
  });
});
