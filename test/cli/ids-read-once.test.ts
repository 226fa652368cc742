import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, parseReport } from '../corpus/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// `user sync` takes "one file, one id"'s ids from its memory's read of the file (user-sync.ts,
// issue 61: one read fewer), not where that read's ids are not the units' ids: a U+FEFF inside an
// id is removed before the units are made, so two ids alike but for it are one id, and both fail.

describe('user sync: the ids of one read of the file', () => {
  it('d-1 and d-\\uFEFF1 are one id once the U+FEFF is removed: both rows fail, in the dry run and the real run', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'users.csv');
      await writeFile(
        file,
        'ExternalId,FirstName,LastName,Email,Role\nd-1,Ann,Lee,d1@students.example.test,Candidate\nd-2,Ben,Okafor,d2@students.example.test,Candidate\nd-\uFEFF1,Annie,Lee,d1b@students.example.test,Candidate\n',
      );
      const args = ['user', 'sync', '--file', file, '--json', '--store', join(dir, 'store')];
      for (const run of [await examctl([...args, '--dry-run'], dir), await examctl(args, dir)]) {
        expect(run.code).toBe(1);
        const failed = parseReport(run).items.filter((item) => item.status === 'failed');
        expect(failed.map((item) => [item.source.line, item.errors.map((problem) => problem.message)])).toEqual([
          [2, ['ExternalId d-1 is also on line 4; an id appears once in one file']],
          [4, ['ExternalId d-1 is also on line 2; an id appears once in one file']],
        ]);
      }
    });
  });
});
