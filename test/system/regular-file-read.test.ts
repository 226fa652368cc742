/**
 * readRegularFileWithStat with a limit holds what fstat said plus one byte: a file that grows
 * after the fstat (here: in the check, which runs between the fstat and the first read) is read
 * whole while under the limit, and refused the moment it passes it.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileTooLargeError, readRegularFileWithStat } from '../../src/system/regular-file.js';
import { withTempDir } from '../cli/helpers.js';

describe('a bounded read of a regular file', () => {
  it('a file that grew after its fstat: read whole under the limit, refused past it', () =>
    withTempDir(async (dir) => {
      const file = join(dir, 'grows.txt');
      await writeFile(file, 'abc');
      const grow = (bytes: number) => async () => appendFile(file, 'x'.repeat(bytes));
      const read = await readRegularFileWithStat(file, { maxBytes: 100, check: grow(50) });
      expect(read.stat.size).toBe(3);
      expect(read.bytes.toString()).toBe(`abc${'x'.repeat(50)}`);
      await expect(readRegularFileWithStat(file, { maxBytes: 100, check: grow(48) })).rejects.toThrow(
        FileTooLargeError,
      );
      expect((await readRegularFileWithStat(file, { maxBytes: 101 })).bytes.length).toBe(101);
    }));
});
