import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, parseReport, ROOT } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Issue 27 (4): PowerShell 5.1's `>` writes UTF-16 LE with a BOM. Every file read through
// src/input takes it (CSV, JSON, NDJSON, a --schedule request, a world/seed file), BE too.

function utf16(text: string, bigEndian = false): Buffer {
  const le = Buffer.from(`\uFEFF${text}`, 'utf16le');
  if (!bigEndian) return le;
  const be = Buffer.alloc(le.length);
  for (let i = 0; i < le.length; i += 2) {
    be[i] = le[i + 1] as number;
    be[i + 1] = le[i] as number;
  }
  return be;
}

describe('UTF-16 with a BOM is read wherever examctl reads a file', () => {
  it('NDJSON (LE) and a JSON array (BE) of users', async () => {
    await inTempDir(async (dir) => {
      const user = (id: string): string =>
        JSON.stringify({
          ExternalId: id,
          FirstName: 'Chloé',
          LastName: 'Lee',
          Email: `${id}@students.example.test`,
          Role: 'Candidate',
        });
      await writeFile(join(dir, 'u.ndjson'), utf16(`${user('u-1')}\r\n${user('u-2')}\r\n`));
      await writeFile(join(dir, 'u.json'), utf16(`[\n${user('u-3')}\n]\n`, true));
      for (const [name, ids] of [
        ['u.ndjson', ['u-1', 'u-2']],
        ['u.json', ['u-3']],
      ] as const) {
        const run = await examctl(
          ['user', 'sync', '--file', join(dir, name), '--dry-run', '--json', '--store', join(dir, 'store')],
          dir,
        );
        expect(run.code).toBe(0);
        expect(parseReport(run).items.map((i) => [i.id, i.status])).toEqual(ids.map((id) => [id, 'ok']));
      }
    });
  });

  it('a --schedule request file in UTF-16 LE', async () => {
    await inTempDir(async (dir) => {
      await writeFile(
        join(dir, 'schedule.json'),
        utf16(
          JSON.stringify({
            Schedule: {
              ScheduleExtId: 'S-U16',
              AssessmentExtId: 'A-MATH-1',
              Title: 'Été',
              StartDateTime: '2026-12-21T09:00:00Z',
              GroupExtId: 'H-CORPUS',
              GroupName: 'Corpus group',
            },
          }),
        ),
      );
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\ncand-1,Ann,Lee,c1@students.example.test\n',
      );
      const run = await examctl(
        [
          'schedule',
          'push',
          '--schedule',
          join(dir, 'schedule.json'),
          '--file',
          join(dir, 'candidates.csv'),
          '--dry-run',
          '--json',
          '--store',
          join(dir, 'store'),
        ],
        dir,
      );
      expect(run.code).toBe(0);
      expect(parseReport(run).items.map((i) => [i.id, i.status])).toEqual([['S-U16', 'ok']]);
    });
  });

  it('local init --seed with a world file saved as UTF-16 LE (local export > world.json in PowerShell 5.1)', async () => {
    await inTempDir(async (dir) => {
      const world = await readFile(join(ROOT, 'fixtures/world.json'), 'utf8');
      await writeFile(join(dir, 'world16.json'), utf16(world));
      const run = await examctl(
        ['local', 'init', '--seed', join(dir, 'world16.json'), '--store', join(dir, 'store')],
        dir,
      );
      expect(run.stderr).toContain('created local store');
      expect(run.code).toBe(0);
    });
  });
});
