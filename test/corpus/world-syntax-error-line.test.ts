import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, inTempDir } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// A world file that is not valid JSON is refused like every input file: one line,
// `file:line: not valid JSON: reason`, without V8's multi-line snippet of the file.
describe('a malformed world file names the line', () => {
  it('says file:line', async () => {
    await inTempDir(async (dir) => {
      const run = await examctl(
        ['local', 'init', '--seed', corpus('world-bad-syntax.json'), '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${corpus('world-bad-syntax.json')}:10:`);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
