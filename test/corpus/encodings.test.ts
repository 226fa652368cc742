import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { expectRefused, inTempDir, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Issue 27 (5): Excel for Windows "CSV (Comma delimited)" saves in the ANSI code page; --encoding
// names it, and the refusal of a non-UTF-8 file names the flag.

const ansi = Buffer.concat([
  Buffer.from('ExternalId,FirstName,LastName,Email,Role\r\nu-1,Chlo', 'latin1'),
  Buffer.from([0xe9]),
  Buffer.from(',M', 'latin1'),
  Buffer.from([0xfc]),
  Buffer.from('ller,u1@students.example.test,Candidate\r\n', 'latin1'),
]);

describe('--encoding for CSV input', () => {
  it('a windows-1252 file is refused without the flag (which the message names) and read with --encoding windows-1252', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'ansi.csv');
      await writeFile(file, ansi);
      const store = join(dir, 'store');
      const refused = await examctl(['user', 'sync', '--file', file, '--dry-run', '--store', store], dir);
      expectRefused(
        refused,
        file,
        2,
        /invalid UTF-8; save the file as UTF-8 text, or name its encoding with --encoding \(e\.g\. --encoding windows-1252/,
      );
      const run = await examctl(
        ['user', 'sync', '--file', file, '--encoding', 'windows-1252', '--dry-run', '--json', '--store', store],
        dir,
      );
      expect(run.code).toBe(0);
      const report = parseReport(run);
      expect(report.items.map((i) => [i.source.line, i.id, i.status])).toEqual([[2, 'u-1', 'ok']]);
      // The value reaches the report as read: the CSV report holds the UTF-8 text.
      const csv = join(dir, 'r.csv');
      expect(
        (
          await examctl(
            [
              'user',
              'sync',
              '--file',
              file,
              '--encoding',
              'windows-1252',
              '--dry-run',
              '--report',
              csv,
              '--store',
              store,
            ],
            dir,
          )
        ).code,
      ).toBe(0);
      const { readFile } = await import('node:fs/promises');
      const written = await readFile(csv);
      expect(written.toString('utf8')).toContain('u-1,Chloé,Müller,');
      // In UTF-8 with a BOM, so Excel reads the accents right although the input had none.
      expect([...written.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    });
  });

  it('a UTF-8 file LibreOffice 7.4 opened as Windows-1252 and saved again: each mangled name is a 9008 warning, --strict fails it', async () => {
    await inTempDir(async (dir) => {
      // soffice --headless --infilter="CSV:44,34,1,1" --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1'
      // of `u-1,Zoë,O’Brien` and `u-2,Ana,São` in UTF-8: its output, byte for byte.
      const file = join(dir, 'libreoffice.csv');
      await writeFile(
        file,
        '"ExternalId","FirstName","LastName","Email"\n"u-1","Zo\u00C3\u00AB","O\u00E2\u20AC\u2122Brien","zoe@example.test"\n"u-2","Ana","S\u00C3\u00A3o","ana@example.test"\n',
      );
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 'store')],
        dir,
      );
      expect(run.code).toBe(0);
      const items = parseReport(run).items;
      expect(items.map((i) => [i.id, i.status, (i.warnings ?? []).map((w) => `${w.field} ${w.code}`)])).toEqual([
        ['u-1', 'ok', ['FirstName 9008', 'LastName 9008']],
        ['u-2', 'ok', ['LastName 9008']],
      ]);
      const strict = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--strict', '--json', '--store', join(dir, 'store')],
        dir,
      );
      expect(parseReport(strict).items.map((i) => [i.id, i.status, i.errors.map((e) => e.code)])).toEqual([
        ['u-1', 'failed', [9008, 9008]],
        ['u-2', 'failed', [9008]],
      ]);
    });
  });

  it('collection add takes --encoding too', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'collections.csv');
      await writeFile(
        file,
        Buffer.concat([
          Buffer.from('ExternalId,Title,Owner\r\nphys1,Physique ', 'latin1'),
          Buffer.from([0xe9]),
          Buffer.from('t', 'latin1'),
          Buffer.from([0xe9]),
          Buffer.from(',scheduler\r\n', 'latin1'),
        ]),
      );
      const run = await examctl(
        [
          'collection',
          'add',
          '--file',
          file,
          '--encoding',
          'windows-1252',
          '--dry-run',
          '--json',
          '--store',
          join(dir, 'store'),
        ],
        dir,
      );
      expect(run.code).toBe(0);
      expect(parseReport(run).items.map((i) => [i.id, i.status])).toEqual([['phys1', 'ok']]);
    });
  });

  it('a BOM wins over --encoding, and an unknown label is a usage error (exit 2) before anything is read', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'utf8.csv');
      await writeFile(
        file,
        '\uFEFFExternalId,FirstName,LastName,Email,Role\nu-1,Chloé,Lee,u1@students.example.test,Candidate\n',
      );
      const store = join(dir, 'store');
      const ok = await examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--encoding',
          'windows-1252',
          '--dry-run',
          '--report',
          join(dir, 'r.csv'),
          '--store',
          store,
        ],
        dir,
      );
      expect(ok.code).toBe(0);
      const { readFile } = await import('node:fs/promises');
      expect(await readFile(join(dir, 'r.csv'), 'utf8')).toContain('Chloé');
      const bad = await examctl(
        ['user', 'sync', '--file', file, '--encoding', 'klingon', '--dry-run', '--store', store],
        dir,
      );
      expect(bad.code).toBe(2);
      expectCoded(bad.stderr, 'E2000', '--encoding klingon');
    });
  });
});
