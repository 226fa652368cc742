/**
 * A line break in a list cell (Alt+Enter in a spreadsheet) separates entries, as `|` does
 * (docs/input-formats.md, "CSV"): what the sheet shows one entry a line is sent as those entries,
 * in CSV and .xlsx alike, with no 9004 "read as one entry" warning; a Hierarchies cell holding a
 * JSON array over several lines stays one array. A message quoting a value that still holds a
 * line break (a JSON record's) shows it as \n on the terminal, not as a space.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { onTarget } from '../support/target-flags.js';

interface Item {
  id: string;
  status: string;
  errors: { field: string; code: number | null; message: string }[];
  warnings?: { field: string; code: number; message: string }[];
}

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(onTarget(['--target', 'local', '--store', join(dir, 'store')], args), io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const HEAD = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role', 'Hierarchies', 'Labels'];
const ROWS = [
  ['nl-1', 'Ann', 'Lee', 'nl1@example.test', 'Candidate', 'H-NORTH\nH-SOUTH', 'extra-time\nreader'],
  ['nl-2', 'Bo', 'Ng', 'nl2@example.test', 'Candidate', 'H-NORTH\nH-NOPE', ''],
  // A comma inside one of the entries a line break separates is part of that entry: no 9004 hint.
  [
    'nl-3',
    'Cy',
    'Od',
    'nl3@example.test',
    'Candidate',
    '[\n  {"ExternalId": "H-SOUTH", "IsCoordinator": true}\n]',
    'room 4, desk 2\nreader',
  ],
];

async function storedUsers(
  dir: string,
): Promise<Map<string, { Labels?: string[]; Hierarchies?: { ExternalId: string; IsCoordinator?: boolean }[] }>> {
  const exported = await cli(dir, ['local', 'export']);
  expect(exported.code, exported.stderr).toBe(0);
  const world = JSON.parse(exported.stdout) as {
    Users: { ExternalId: string; Labels?: string[]; Hierarchies?: { ExternalId: string; IsCoordinator?: boolean }[] }[];
  };
  return new Map(world.Users.map((user) => [user.ExternalId, user]));
}

describe('a line break in a list cell separates entries', () => {
  it.each(['csv', 'xlsx'])(
    '%s: one entry a line is sent as those entries, with no warning; a JSON array over lines stays whole',
    (format) =>
      withTempDir(async (dir) => {
        expect((await cli(dir, ['local', 'init'])).code).toBe(0);
        const file = join(dir, `users.${format}`);
        if (format === 'csv') {
          const cell = (text: string) => (/[\n,"]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
          // Excel's CSV: CRLF between rows, LF inside a cell.
          await writeFile(file, [HEAD, ...ROWS].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n');
        } else {
          await writeWorkbook(file, [{ name: 'Users', rows: [HEAD, ...ROWS] }]);
        }
        const run = await cli(dir, ['user', 'sync', '--file', file, '--json']);
        expect(run.code, run.stderr).toBe(1);
        const items = (JSON.parse(run.stdout) as { items: Item[] }).items;
        expect(items.map((item) => [item.id, item.status])).toEqual([
          ['nl-1', 'ok'],
          // Created in H-NORTH; the membership the store lacks is the group error of a partial item.
          ['nl-2', 'partial'],
          ['nl-3', 'ok'],
        ]);
        expect(items.flatMap((item) => item.warnings ?? [])).toEqual([]);
        // The entry the store lacks is named alone, not with its neighbour on the line above.
        expect(items[1]!.errors.map((error) => error.message)).toEqual(['Hierarchy not found: H-NOPE']);
        const users = await storedUsers(dir);
        expect(users.get('nl-1')?.Labels).toEqual(['extra-time', 'reader']);
        expect(users.get('nl-1')?.Hierarchies?.map((membership) => membership.ExternalId)).toEqual([
          'H-NORTH',
          'H-SOUTH',
        ]);
        expect(users.get('nl-3')?.Labels).toEqual(['room 4, desk 2', 'reader']);
        expect(users.get('nl-3')?.Hierarchies).toEqual([
          expect.objectContaining({ ExternalId: 'H-SOUTH', IsCoordinator: true }),
        ]);
      }),
  );

  it('a header cell with a line break: the unknown column named on one line, with a --map that works as shown', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      const file = join(dir, 'users.csv');
      await writeFile(file, '"Student\nID",FirstName,LastName,Role\r\nst-1,Ann,Lee,Candidate\r\n');
      const refused = await cli(dir, ['user', 'sync', '--file', file, '--dry-run']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        'unknown column: "Student ID" (likely ExternalId); read them as API fields with --map "Student ID=ExternalId"',
      );
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      const mapped = await cli(dir, ['user', 'sync', '--file', file, '--dry-run', '--map', 'Student ID=ExternalId']);
      expect(mapped.code, mapped.stderr).toBe(0);
    }));

  it('a comma-separated cell without a line break still gets the 9004 hint', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.csv'),
        `${HEAD.join(',')}\nc-1,Ann,Lee,c1@example.test,Candidate,H-NORTH,"extra-time, reader"\n`,
      );
      const run = await cli(dir, ['--dry-run', 'user', 'sync', '--file', 'users.csv', '--json']);
      const items = (JSON.parse(run.stdout) as { items: Item[] }).items;
      expect(items[0]!.warnings).toEqual([expect.objectContaining({ field: 'Labels', code: 9004 })]);
    }));

  it('--set Labels takes the same separators', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      await writeFile(
        join(dir, 'users.csv'),
        `${HEAD.slice(0, 6).join(',')}\ns-1,Ann,Lee,s1@example.test,Candidate,H-NORTH\n`,
      );
      const run = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--set', 'Labels=extra-time\nreader|y12']);
      expect(run.code, run.stderr).toBe(0);
      expect((await storedUsers(dir)).get('s-1')?.Labels).toEqual(['extra-time', 'reader', 'y12']);
    }));

  it("a message quoting a value with a line break shows it as \\n on the terminal (a JSON record's membership)", () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init'])).code).toBe(0);
      await writeFile(
        join(dir, 'users.json'),
        JSON.stringify([
          {
            ExternalId: 'j-1',
            FirstName: 'Ann',
            LastName: 'Lee',
            Email: 'j1@example.test',
            Role: 'Candidate',
            Hierarchies: [{ ExternalId: 'H-NORTH\nH-SOUTH' }],
          },
        ]),
      );
      const run = await cli(dir, ['user', 'sync', '--file', 'users.json']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Hierarchy not found: H-NORTH\\nH-SOUTH');
      expect(run.stderr).not.toContain('H-NORTH H-SOUTH');
    }));
});
