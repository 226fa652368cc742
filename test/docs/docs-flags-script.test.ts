import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { withTempDir } from '../cli/helpers.js';

/**
 * `npm run docs:flags` (scripts/docs-flags.mjs), run whole as a maintainer runs it after a change, but with `--out`:
 * every doc it generates lands in a scratch folder, none in the repository. It ends well, and what it writes is the
 * checked-in docs byte for byte (it crashed once, unnoticed: only its blocks were tested, not the script).
 */

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

describe('npm run docs:flags', () => {
  it('runs to its end and generates exactly the checked-in docs', () =>
    withTempDir(async (dir) => {
      const { stderr } = await promisify(execFile)(
        process.execPath,
        [join(ROOT, 'scripts', 'docs-flags.mjs'), '--out', dir],
        { cwd: ROOT, timeout: 60_000 },
      );
      expect(stderr).toContain('0 files rewritten');
      const differing = DOCS.filter(
        (doc) => readFileSync(join(dir, doc), 'utf8') !== readFileSync(join(ROOT, doc), 'utf8'),
      );
      expect(differing).toEqual([]);
      expect(DOCS).toContain(join('docs', 'errors.md'));
    }));
});
