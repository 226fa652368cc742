import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectRefused, inTempDir } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Two exports concatenated (`cat a.csv b.csv`) repeat the header mid-file, often with the
// second file's BOM. A row whose cells all match their own column names (compared as header
// names are) is refused as a structural error naming its line: "file:3: the header row is
// repeated here (files concatenated?)", exit 2, nothing sent; a real run refuses it in its
// structure pass, before the store exists.
describe('a header row repeated mid-file', () => {
  it('is refused with its line', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'c.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName\nn-1,A,B\n\ufeffExternalId,FirstName,LastName\nn-2,A,B\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${file}:3: `);
    });
  });

  it('is refused by a real run before the store is created, also written differently', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'c.csv');
      await writeFile(
        file,
        'ExternalId,First Name,LastName\r\nn-1,A,B\r\nn-2,A,B\r\nexternal_id,FIRSTNAME,last-name\r\n',
      );
      const store = join(dir, 's');
      const run = await examctl(['user', 'sync', '--file', file, '--store', store], dir);
      expectRefused(run, file, 4, /the header row is repeated here \(files concatenated\?\)/);
      const { existsSync } = await import('node:fs');
      expect(existsSync(store)).toBe(false);
    });
  });

  it('leaves a row that only partly looks like the header alone', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'c.csv');
      await writeFile(file, 'ExternalId,FirstName,LastName\nExternalId,FirstName,Lee\n');
      const run = await examctl(
        ['user', 'sync', '--file', file, '--dry-run', '--json', '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(0);
    });
  });
});
