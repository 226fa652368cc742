import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, inTempDir, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Reports in the input's dialect (issue 23, 4): the European admin's fix-and-retry loop keeps
// the BOM, the `sep=;` line and the `;` delimiter, so Excel opens result.csv as it opened the input.

describe('a CSV report is written in its input dialect', () => {
  it('UTF-8 BOM, sep=; and ; in: the report starts with the BOM and sep=;, uses ; (CRLF), and --only-failed reads it back', async () => {
    await inTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(
        input,
        '\uFEFFsep=;\r\nExternalId;FirstName;LastName;Email;Role;Company\r\n' +
          'eu-1;Zoë;Müller;zoe@students.example.test;Candidate;"Acme; Söhne"\r\n' +
          'eu-2;Ben;Okafor;not-an-email;Candidate;\r\n',
      );
      const report = join(dir, 'result.csv');
      const store = join(dir, 'store');
      const first = await examctl(['user', 'sync', '--file', input, '--report', report, '--store', store], dir);
      expect(first.code).toBe(1);
      const text = await readFile(report, 'utf8');
      const lines = text.split(/\r?\n/);
      expect(lines[0]).toBe('\uFEFFsep=;');
      expect(lines[1]).toBe(
        'ExternalId;FirstName;LastName;Email;Role;Company;status;error_codes;error_messages;action;note;run',
      );
      expect(lines[2]).toMatch(
        /^eu-1;Zoë;Müller;zoe@students\.example\.test;Candidate;"Acme; Söhne";ok;;;created;;\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/,
      );
      expect(lines[3]).toMatch(/^eu-2;Ben;Okafor;not-an-email;Candidate;;failed;209;/);
      expect(text.endsWith('\r\n')).toBe(true);
      // The fix-and-retry loop: the report is an input again, its not-ok row only.
      const again = parseReport(
        await examctl(
          ['user', 'sync', '--file', report, '--only-failed', '--dry-run', '--json', '--store', store],
          dir,
        ),
      );
      expect(again.items.map((i) => [i.source.line, i.id, i.status])).toEqual([[4, 'eu-2', 'failed']]);
    });
  });

  it('a tab-separated UTF-16 input (Excel "Unicode text") gives a tab-separated report with a UTF-8 BOM and no sep= line', async () => {
    await inTempDir(async (dir) => {
      const report = join(dir, 'r.csv');
      const run = await examctl(
        [
          'user',
          'sync',
          '--file',
          corpus('excel-unicode-text.txt'),
          '--report',
          report,
          '--dry-run',
          '--store',
          join(dir, 'store'),
        ],
        dir,
      );
      expect(run.code).toBe(0);
      const text = await readFile(report, 'utf8');
      expect(text.startsWith('\uFEFFExternalId\t')).toBe(true);
      expect(text.split(/\r?\n/)[0]).toContain('\tstatus\terror_codes\terror_messages\taction\tnote\trun');
    });
  });

  it('a plain comma file without a BOM, LF line ends, gives a plain comma report with LF (no BOM, no sep= line)', async () => {
    await inTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(
        input,
        'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u1@students.example.test,Candidate\n',
      );
      const report = join(dir, 'r.csv');
      expect(
        (
          await examctl(
            ['user', 'sync', '--file', input, '--report', report, '--dry-run', '--store', join(dir, 'store')],
            dir,
          )
        ).code,
      ).toBe(0);
      expect(await readFile(report, 'utf8')).toBe(
        'ExternalId,FirstName,LastName,Email,Role,status,error_codes,error_messages,action,note,run\nu-1,Ann,Lee,u1@students.example.test,Candidate,valid,,,,,\n',
      );
    });
  });

  it.each([
    ['BOM, sep=; and ; with CRLF', '\uFEFF', 'sep=;', ';', '\r\n'],
    ['BOM and ; with LF', '\uFEFF', undefined, ';', '\n'],
    ['tabs with CRLF, no BOM', '', undefined, '\t', '\r\n'],
  ])(
    'every retry report keeps the dialect (%s), also when nothing is left: --only-failed, and runs show --report',
    async (_what, bom, sepLine, delimiter, lineEnd) => {
      await inTempDir(async (dir) => {
        const store = join(dir, 'store');
        const header = ['ExternalId', 'FirstName', 'LastName', 'Email', 'Role'];
        const line = (cells: string[]) => `${cells.join(delimiter)}${lineEnd}`;
        const preamble = `${bom}${sepLine === undefined ? '' : `${sepLine}${lineEnd}`}`;
        await writeFile(
          join(dir, 'users.csv'),
          preamble +
            line(header) +
            line(['u-1', 'Ann', 'Lee', 'ann@example.test', 'Candidate']) +
            line(['u-2', 'Bo', 'Lee', 'bo-at-example', 'Candidate']),
        );
        const reportHeader = `${preamble}${line([...header, 'status', 'error_codes', 'error_messages', 'action', 'note', 'run'])}`;
        expect(
          (await examctl(['user', 'sync', '--file', 'users.csv', '--report', 'r1.csv', '--store', store], dir)).code,
        ).toBe(1);
        const first = await readFile(join(dir, 'r1.csv'), 'utf8');
        expect(first.startsWith(reportHeader)).toBe(true);
        // The admin fixes the e-mail; the retry sends that row only and reports nothing left to do.
        await writeFile(join(dir, 'r1.csv'), first.replace('bo-at-example', 'bo@example.test'));
        const fixed = await examctl(
          ['user', 'sync', '--file', 'r1.csv', '--only-failed', '--report', 'r2.csv', '--store', store],
          dir,
        );
        expect(fixed.code, fixed.stderr).toBe(0);
        expect(await readFile(join(dir, 'r2.csv'), 'utf8')).toBe(reportHeader);
        // Its report fed back: no row at all, the same header and dialect.
        const nothing = await examctl(
          ['user', 'sync', '--file', 'r2.csv', '--only-failed', '--report', 'r3.csv', '--store', store, '--json'],
          dir,
        );
        expect(nothing.code, nothing.stderr).toBe(0);
        expect(await readFile(join(dir, 'r3.csv'), 'utf8')).toBe(reportHeader);
        const run = (JSON.parse(nothing.stdout) as { run: string }).run;
        const shown = await examctl(['runs', 'show', run, '--report', 'shown.csv'], dir);
        expect(shown.code, shown.stderr).toBe(0);
        expect(await readFile(join(dir, 'shown.csv'), 'utf8')).toBe(reportHeader);
      });
    },
  );
});
