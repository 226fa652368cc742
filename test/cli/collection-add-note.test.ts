import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from './helpers.js';
import { withTempDir } from '../support/temp-dir.js';

const FLAGS = ['collection', 'add', '--title', 'Geography 2027', '--taxonomy', 'TX-BLOOM', '--repository', 'LO-CORE'];
const NOTE = 'note: no --external-id: examctl names the collection, so running this again makes another one';

/** As schedule push says of a schedule without an id (found by a trial: two identical collections, no word). */
it('collection add from flags without --external-id says a second run makes another; with one, or a dry run, not', () =>
  withTempDir(async (dir) => {
    const unnamed = testDeps(dir);
    expect(await runCli(FLAGS, unnamed.deps), unnamed.stderr.text).toBe(0);
    expect(unnamed.stderr.text).toContain(NOTE);
    expect(unnamed.stderr.text).toContain('--external-id <id> --existing ok');
    for (const extra of [['--external-id', 'geo27'], ['--dry-run']]) {
      const io = testDeps(dir);
      expect(await runCli([...FLAGS, ...extra], io.deps), io.stderr.text).toBe(0);
      expect(io.stderr.text).not.toContain(NOTE);
    }
  }));
