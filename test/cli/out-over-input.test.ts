import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps } from './helpers.js';
import { withTempDir } from '../support/temp-dir.js';

/** `--out` never replaces the `--file` the run reads, as `--report` never does (found by a trial). */
it('review-session show --out naming its own --file (or a link to it) is exit 2, the list kept', () =>
  withTempDir(async (dir) => {
    const list = 'ExternalId\nRS-MATH1-OCT\n';
    writeFileSync(join(dir, 'term.csv'), list);
    symlinkSync(join(dir, 'term.csv'), join(dir, 'link.csv'));
    for (const out of ['term.csv', 'link.csv']) {
      const io = testDeps(dir);
      expect(await runCli(['review-session', 'show', '--file', 'term.csv', '-o', 'csv', '--out', out], io.deps)).toBe(
        2,
      );
      expectCoded(io.stderr.text, 'E2000', `--out ${out}`, '--file');
      expect(readFileSync(join(dir, 'term.csv'), 'utf8')).toBe(list);
    }
    const io = testDeps(dir);
    expect(
      await runCli(['review-session', 'show', '--file', 'term.csv', '-o', 'csv', '--out', 'results.csv'], io.deps),
      io.stderr.text,
    ).toBe(0);
    expect(readFileSync(join(dir, 'results.csv'), 'utf8')).toContain('RS-MATH1-OCT');
  }));
