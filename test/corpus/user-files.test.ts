import { describe, expect, it } from 'vitest';
import { corpus, expectRefused, inTempDir, parseReport, problems } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Real-world exports and broken files (fixtures/corpus/README.md) through `user sync`, as the
// contract's "Input files", "Run report" and "Exit status" sections say they must behave.

type Problem = [number, string | null, string, ...[string | null, number | null][]];
interface Case {
  file: string;
  total: number;
  problems?: Problem[];
}

const accepted: Case[] = [
  { file: 'excel-bom-semicolon-crlf.csv', total: 3 },
  { file: 'excel-csv-utf8.csv', total: 2 },
  { file: 'excel-unicode-text.txt', total: 2 },
  { file: 'google-sheets.csv', total: 3 },
  { file: 'libreoffice-quoted.csv', total: 2 },
  { file: 'trailing-blank-lines.csv', total: 2 },
  { file: 'header-variants.csv', total: 2 },
  { file: 'quoted-headers.csv', total: 2 },
  { file: 'cell-spaces.csv', total: 1 },
  { file: 'bom.json', total: 2 },
  { file: 'trailing-blank.ndjson', total: 2 },
  { file: 'empty-array.json', total: 0 },
  { file: 'user-object.json', total: 1 },
  // `sep=;` is line 1, so the bad Email of the third physical line's record is on line 4.
  { file: 'sep-directive.csv', total: 2, problems: [[4, 'cx-2', 'failed', ['Email', 209]]] },
  // Lengths in code points: 500 emoji pass, 501 fail; City 50 'ß' pass, 51 fail.
  {
    file: 'non-ascii.csv',
    total: 6,
    problems: [
      [5, 'cx-4', 'failed', ['FirstName', 211]],
      [7, 'cx-6', 'failed', ['City', 228]],
    ],
  },
  {
    file: 'long-cells.csv',
    total: 5,
    problems: [
      [3, 'cx-2', 'failed', ['FirstName', 211]],
      [4, 'cx-3', 'failed', ['LastName', 213]],
      [5, 'cx-4', 'failed', ['FirstName', 211], ['LastName', 213]],
    ],
  },
  { file: 'crlf.ndjson', total: 3, problems: [[3, 'cx-3', 'failed', ['Email', 209]]] },
  { file: 'booleans.csv', total: 13, problems: [[14, 'cx-13', 'failed', ['SpecialNeeds', 9017]]] },
  { file: 'formulas.csv', total: 3, problems: [[3, 'cx-2', 'failed', ['Email', 209]]] },
  {
    file: 'passwords.csv',
    total: 3,
    problems: [
      [3, 'cx-2', 'failed', ['Password', 247]],
      [4, 'cx-3', 'failed', ['Email', 209]],
    ],
  },
  // The second array element's `{` is on line 15.
  { file: 'passwords.json', total: 2, problems: [[15, 'cx-2', 'failed', ['Email', 209], ['Password', 247]]] },
];

describe('user sync --dry-run --json on real-world files', () => {
  it.concurrent.each(accepted)('$file', async ({ file, total, problems: expected = [] }) => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        ['user', 'sync', '--file', corpus(file), '--dry-run', '--json', '--store', `${dir}/store`],
        dir,
      );
      const report = parseReport(run);
      expect(report.command).toBe('user sync');
      expect(report.dryRun).toBe(true);
      expect(report.summary.total).toBe(total);
      expect(report.items).toHaveLength(total);
      expect(problems(report)).toEqual(expected);
      expect(report.summary.failed).toBe(expected.length);
      expect(run.code).toBe(expected.length === 0 ? 0 : 1);
      // Every problem also reaches the human summary as `file:line [id] field code message`.
      for (const [line, id, , [field, code]] of expected as [number, string, string, [string, number | null]][]) {
        expect(run.stderr).toContain(`${corpus(file)}:${line} [${id}] ${field} ${code ?? '-'} `);
      }
    });
  });
});

describe('user sync refuses broken files before sending anything (exit 2, file:line)', () => {
  const refused: [string, number, RegExp][] = [
    ['windows-1252.csv', 3, /invalid UTF-8; save the file as UTF-8/],
    // A NUL byte makes the file binary; the reader names the line it is on (docs/input-formats.md).
    ['nul-middle.csv', 3, /not a text file \(binary content\)/],
    ['comments.json', 3, /malformed JSON/],
    ['duplicate-keys.json', 5, /the key "ExternalId" appears twice in one object \(record starting on line 3\)/],
  ];
  it.concurrent.each(refused)('%s', async (file, line, reason) => {
    await inTempDir(async (dir) => {
      // A real run, not a dry run: the structural pass must stop it before the store exists.
      const run = await examctl(['user', 'sync', '--file', corpus(file), '--json', '--store', `${dir}/store`], dir);
      expectRefused(run, corpus(file), line, reason);
      const { existsSync } = await import('node:fs');
      expect(existsSync(`${dir}/store`)).toBe(false);
    });
  });
});

describe('a real run gives the same verdicts as the dry run', () => {
  // The dry-run verdicts are the table above; the engine must give the same codes on the same lines.
  const real = accepted.filter((c) =>
    ['non-ascii.csv', 'long-cells.csv', 'booleans.csv', 'excel-unicode-text.txt', 'crlf.ndjson'].includes(c.file),
  );
  it.concurrent.each(real)('$file', async ({ file, total, problems: expected = [] }) => {
    await inTempDir(async (dir) => {
      const run = await examctl(['user', 'sync', '--file', corpus(file), '--json', '--store', `${dir}/store`], dir);
      const report = parseReport(run);
      expect(report.dryRun).toBe(false);
      expect(run.stderr).toContain('created local store');
      expect(problems(report)).toEqual(expected);
      expect(report.summary).toMatchObject({
        total,
        ok: total - expected.length,
        partial: 0,
        failed: expected.length,
        skipped: 0,
        created: total - expected.length,
        updated: 0,
      });
      expect(report.items.filter((i) => i.status === 'ok').every((i) => i.action === 'created')).toBe(true);
    });
  });
});
