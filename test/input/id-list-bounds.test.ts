import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readIdList } from '../../src/input/id-list.js';
import { withTempDir } from '../support/temp-dir.js';
import { examctlStep } from '../support/in-process.js';
import { expectInputFileError } from './helpers.js';
import { itemLine } from '../support/coded-message.js';

// trial46 F06: a plain-text id list read a line of any length into one string (400 MiB: exit 70
// at 1.7 GB), and ids were quoted whole in the human summary.
describe('an id list in bounded memory', () => {
  it('refuses a line over a CSV record bound at its line, and reads no further (the NUL after it is never met)', async () => {
    await withTempDir(async (dir) => {
      const ids = join(dir, 'ids.txt');
      await writeFile(ids, `${'x'.repeat(4 << 20)}\n\0`);
      await expectInputFileError(readIdList(ids, { displayName: 'ids.txt' }), {
        file: 'ids.txt',
        line: 1,
        reason: /^line too large: the record starting on this line has over 128,000 bytes/,
      });
    });
  });

  it('refuses a JSON list over 16 MiB before parsing it (a plain or CSV list streams)', async () => {
    await withTempDir(async (dir) => {
      const ids = join(dir, 'ids.json');
      await writeFile(ids, `[${'"inv-1",'.repeat(2_200_000)}"inv-2"]`);
      await expectInputFileError(readIdList(ids, { displayName: 'ids.json' }), {
        file: 'ids.json',
        line: 1,
        reason: /^a JSON id list is at most 16 MiB/,
      });
    });
  });

  it('reads a CRLF cut by a chunk end as one line end', async () => {
    await withTempDir(async (dir) => {
      const ids = join(dir, 'ids.txt');
      // The first read is 8 KiB: its last byte is the CR.
      await writeFile(ids, `${'#'.repeat(8189)}\r\ninv-1\r\n\r\ninv-2`);
      expect((await readIdList(ids)).map((entry) => [entry.id, entry.source.line])).toEqual([
        ['inv-1', 2],
        ['inv-2', 4],
      ]);
    });
  });

  it("refuses an invigilator id over a user's string(64) at its line, from a file or an argument, before anything is sent", async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'ids.txt'), `inv-1\n${'y'.repeat(64)}\n${'x'.repeat(65)}\n`);
      const run = await examctlStep(
        ['invigilators', 'remove', 'S-1', '--file', 'ids.txt', '--store', 'st', '--dry-run'],
        dir,
      );
      expect([run.code, run.stderr.trim()]).toEqual([
        2,
        `examctl: E2000: ids.txt:3: The user external id "${'x'.repeat(59)}…" (65 characters) is 65 characters; at most 64 (string(64)): nothing was sent`,
      ]);
      const typed = await examctlStep(
        ['invigilators', 'remove', 'S-1', 'x'.repeat(65), '--store', 'st', '--dry-run'],
        dir,
      );
      expect([typed.code, typed.stderr]).toEqual([2, expect.stringContaining('<arguments>:1: The user external id')]);
      const review = await examctlStep(['review-session', 'show', '--file', 'ids.txt', '--store', 'st'], dir);
      expect([review.code, review.stderr]).toEqual([
        2,
        expect.stringContaining('ids.txt:2: The review session external id'),
      ]);
    });
  });

  it('cuts a long id in the summary (plan and failure lines) as any quoted value, and keeps it whole in --json', async () => {
    await withTempDir(async (dir) => {
      const id = 'x'.repeat(100_000);
      await writeFile(
        join(dir, 'u.csv'),
        `ExternalId,FirstName,LastName,Email,Role\n${id},Ann,Lee,a@example.test,Candidate\n`,
      );
      expect((await examctlStep(['local', 'init', '--store', 'st'], dir)).code).toBe(0);
      const run = await examctlStep(['user', 'sync', '--file', 'u.csv', '--store', 'st', '--dry-run', '--json'], dir);
      expect(run.code).toBe(1);
      expect(run.stderr.length).toBeLessThan(2000);
      const cut = `"${'x'.repeat(59)}…" (100,000 characters)`;
      expect(run.stderr).toContain(`  ! ${cut} (invalid)\n`);
      expect(itemLine(run.stderr, cut, 'ExternalId')).toMatch(/^ {2}u\.csv:2 .* 218 /);
      expect(run.stdout).toContain(`"id":"${id}"`);
    });
  });
});
