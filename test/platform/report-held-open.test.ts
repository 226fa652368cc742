import { describe, expect, it, vi } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { reportStatusOf } from '../../src/input/csv-reader.js';
import { readAll } from '../xlsx/helpers.js';

/** Renames onto a name matching `heldOpen` fail with EPERM, as on Windows while Excel has the file open. */
const held = vi.hoisted(() => ({ heldOpen: undefined as RegExp | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const rename = async (from: string, to: string): Promise<void> => {
    if (held.heldOpen?.test(String(to)))
      throw Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), { code: 'EPERM' });
    return actual.rename(from, to);
  };
  return { ...actual, rename, default: { ...actual, rename } };
});

const USERS = resolve(__dirname, '../../fixtures/users.csv');

describe('a --report held open by another program at the end of the run', () => {
  it(
    'every record is sent, exit 3, and the finished report is kept beside it with "close it in Excel"',
    () =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
        await writeFile(join(dir, 'report.csv'), 'yesterday');
        held.heldOpen = /report\.csv$/;
        const io = testDeps(dir);
        try {
          expect(
            await runCli(
              ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv', '--report', 'report.csv'],
              io.deps,
            ),
          ).toBe(3);
          const said = io.stderr.text;
          expect(said).toContain('close it in Excel');
          expect(said).toContain('every record was processed');
          const kept = (await readdir(dir)).find((name) => /^report\.examctl-\d{8}-\d{6}\.csv$/.test(name));
          expect(kept).toBeDefined();
          expect(said).toContain(`kept at ${join(dir, kept!)}`);
          const lines = (await readFile(join(dir, kept!), 'utf8')).trimEnd().split(/\r?\n/);
          const records = (await readFile(USERS, 'utf8')).trimEnd().split('\n').length - 1;
          expect(lines).toHaveLength(records + 1);
          expect(lines.slice(1).every((line) => /,ok,/.test(line))).toBe(true);
          expect(await readFile(join(dir, 'report.csv'), 'utf8')).toBe('yesterday');
          expect((await readdir(dir)).filter((name) => name.startsWith('.atomic-'))).toEqual([]);
        } finally {
          held.heldOpen = undefined;
        }
      }),
    20_000,
  );

  it(
    'a report name with spaces (C:\\Users\\Ann Lee\\...): the message names it once, as given',
    () =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
        await writeFile(join(dir, 'my report.csv'), 'yesterday');
        held.heldOpen = /my report\.csv$/;
        const io = testDeps(dir);
        try {
          expect(
            await runCli(
              ['--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv', '--report', 'my report.csv'],
              io.deps,
            ),
          ).toBe(3);
          const said = io.stderr.text;
          expectCoded(said, 'E3040', 'report my report.csv', 'EPERM', 'Excel');
          expect(said.match(/cannot write report/g)).toHaveLength(1);
        } finally {
          held.heldOpen = undefined;
        }
      }),
    20_000,
  );

  it(
    'an .xlsx report: the workbook kept beside it is complete: examctl reads back every row and its status',
    () =>
      withTempDir(async (dir) => {
        await writeFile(
          join(dir, 'users.csv'),
          await readFile(resolve(__dirname, '../../fixtures/users-with-errors.csv'), 'utf8'),
        );
        await writeFile(join(dir, 'report.xlsx'), 'open in Excel');
        held.heldOpen = /report\.xlsx$/;
        const io = testDeps(dir);
        try {
          expect(
            await runCli(
              [
                '--store',
                join(dir, 'store'),
                'user',
                'sync',
                '--file',
                'users.csv',
                '--dry-run',
                '--report',
                'report.xlsx',
              ],
              io.deps,
            ),
          ).toBe(3);
          const kept = (await readdir(dir)).find((name) => /^report\.examctl-\d{8}-\d{6}\.xlsx$/.test(name));
          expect(kept).toBeDefined();
          const records = await readAll(join(dir, kept!), { columns: USER_COLUMNS });
          expect(records.map((record) => [record.fields['ExternalId'], reportStatusOf(record)])).toEqual([
            ['stu-3001', 'valid'],
            ['stu-3002', 'invalid'],
            ['stu-3003', 'invalid'],
            ['stu 3004', 'invalid'],
            ['stu-3005', 'valid'],
          ]);
          expect(await readFile(join(dir, 'report.xlsx'), 'utf8')).toBe('open in Excel');
        } finally {
          held.heldOpen = undefined;
        }
      }),
    20_000,
  );
});
