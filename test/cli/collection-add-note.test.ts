import { expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from './helpers.js';
import { withTempDir } from '../support/temp-dir.js';

const FLAGS = ['collection', 'add', '--title', 'Geography 2027', '--taxonomy', 'TX-BLOOM', '--repository', 'LO-CORE'];
const NOTE = 'note: no --external-id: examctl names each, so running this again makes another one';

/** As schedule push says of a schedule without an id (found by a trial: two identical collections, no word). */
it('collection add from flags without --external-id says a second run makes another; with one, or a dry run, not', () =>
  withTempDir(async (dir) => {
    const unnamed = testDeps(dir);
    expect(await runCli(FLAGS, unnamed.deps), unnamed.stderr.text).toBe(0);
    expect(unnamed.stderr.text).toContain(NOTE);
    expect(unnamed.stderr.text).toContain('--external-id <id>');
    expect(unnamed.stderr.text).toContain('--existing ok');
    for (const extra of [['--external-id', 'geo27'], ['--dry-run']]) {
      const io = testDeps(dir);
      expect(await runCli([...FLAGS, ...extra], io.deps), io.stderr.text).toBe(0);
      expect(io.stderr.text).not.toContain(NOTE);
    }
  }));

/** The file's way to the same trap (trial11 F03): `--existing ok` cannot keep a collection without an id from being made again. */
it('collection add --file with collections without ExternalId says how many a second run makes again; with ids, or a dry run, not', () =>
  withTempDir(async (dir) => {
    const FILE_NOTE =
      "note: 2 of the file's collections have no ExternalId: examctl names each, so running this again makes another one; give each an ExternalId";
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify([{ Title: 'Physics 2027' }, { Title: 'Chemistry 2027' }, { Title: 'Art', ExternalId: 'art27' }]),
    );
    for (const extra of [['--dry-run'], [], ['--existing', 'ok']]) {
      const io = testDeps(dir);
      expect(await runCli(['collection', 'add', '--file', 'c.json', ...extra], io.deps), io.stderr.text).toBe(0);
      if (extra[0] === '--dry-run') expect(io.stderr.text).not.toContain('no ExternalId');
      else expect(io.stderr.text).toContain(FILE_NOTE);
    }
    writeFileSync(join(dir, 'named.json'), JSON.stringify([{ Title: 'Art', ExternalId: 'art28' }]));
    const io = testDeps(dir);
    expect(await runCli(['collection', 'add', '--file', 'named.json'], io.deps)).toBe(0);
    expect(io.stderr.text).not.toContain('no ExternalId');
  }));
