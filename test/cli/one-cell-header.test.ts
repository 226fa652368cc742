import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { writeWorkbook } from '../xlsx/helpers.js';
import { testDeps, withTempDir } from './helpers.js';

/** A dry run of user sync on `file` (local target, no store needed to refuse a header). */
async function dryRun(dir: string, file: string, extra: string[] = []) {
  const io = testDeps(dir);
  const code = await runCli(
    ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', file, '--dry-run', ...extra],
    io.deps,
  );
  return { code, stderr: io.stderr.text };
}

const HEADER = 'ExternalId,FirstName,LastName,Email';
const ROW = 'S-1,Ada,Lovelace,ada@example.test';

describe('a header of one cell: no header at all', () => {
  it("PowerShell 5.1's #TYPE line: names the line and -NoTypeInformation, not --map", async () => {
    await withTempDir(async (dir) => {
      const quoted = (line: string) =>
        line
          .split(',')
          .map((cell) => `"${cell}"`)
          .join(',');
      await writeFile(
        join(dir, 'ps.csv'),
        `#TYPE System.Management.Automation.PSCustomObject\r\n${quoted(HEADER)}\r\n${quoted(ROW)}\r\n`,
      );
      const { code, stderr } = await dryRun(dir, 'ps.csv');
      expect(code).toBe(2);
      expectCoded(stderr, 'E2100', 'ps.csv:1: ', '#TYPE', 'Export-Csv -NoTypeInformation');
      expect(stderr).not.toContain('--map');
      expect(stderr).not.toContain('--ignore-unknown-columns');
    });
  });

  it('a CSV title row above the header: says so and to delete it, even with --ignore-unknown-columns', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'titled.csv'), `Spring term users,,,\n${HEADER}\n${ROW}\n`);
      for (const extra of [[], ['--ignore-unknown-columns']]) {
        const { code, stderr } = await dryRun(dir, 'titled.csv', extra);
        expect(code).toBe(2);
        expectCoded(stderr, 'E2100', 'titled.csv:1: ', '"Spring term users"');
        expect(stderr).toContain('delete the title row');
        expect(stderr).not.toContain('--map');
      }
    });
  });

  it('an .xlsx title row above the header: the same message', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'titled.xlsx');
      await writeWorkbook(path, [
        { name: 'Users', rows: [['Spring term users'], HEADER.split(','), ROW.split(',')], merges: ['A1:D1'] },
      ]);
      const { code, stderr } = await dryRun(dir, 'titled.xlsx');
      expect(code).toBe(2);
      expectCoded(stderr, 'E2100', 'titled.xlsx', '"Spring term users"');
      expect(stderr).toContain('delete the title row');
    });
  });

  it('a one-column file whose name is a near spelling keeps its --map hint', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'typo.csv'), 'Emial\nada@example.test\n');
      const { code, stderr } = await dryRun(dir, 'typo.csv');
      expect(code).toBe(2);
      expect(stderr).toContain('unknown column: "Emial"');
      expect(stderr).not.toContain('title');
    });
  });
});
