import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { parse } from 'csv-parse/sync';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { summaryOf } from '../support/facts.js';

/** `collection add`'s report fed back: only the rows that are not ok go again (docs/human.md, "Fix and retry"). */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

function rows(file: string): Record<string, string>[] {
  return parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
}

describe('collection add --only-failed', () => {
  it('sends only the failed rows of its own report, once fixed; the ok ones are not sent again (which would be 810)', () =>
    withTempDir(async (dir) => {
      writeFileSync(
        join(dir, 'c.csv'),
        `ExternalId,Title\nphys2027,Physics 2027\nbad id,Bad\nbio2027,${'x'.repeat(120)}\n`,
      );
      const first = await cli(dir, ['collection', 'add', '--file', 'c.csv', '--report', 'r.csv', '--store', 's']);
      expect(first.code).toBe(1);
      expect(rows(join(dir, 'r.csv')).map((row) => row.status)).toEqual(['ok', 'failed', 'failed']);
      // The admin fixes the two failed rows in the report and sends it back.
      const fixed = readFileSync(join(dir, 'r.csv'), 'utf8')
        .replace('bad id,Bad,', 'badid,Bad,')
        .replace(`bio2027,${'x'.repeat(120)},`, 'bio2027,Biology 2027,');
      writeFileSync(join(dir, 'r.csv'), fixed);
      const retry = await cli(dir, [
        'collection',
        'add',
        '--file',
        'r.csv',
        '--only-failed',
        '--report',
        'retry.csv',
        '--store',
        's',
      ]);
      expect(summaryOf(retry.stderr)).toMatchObject({ total: 2, ok: 2, partial: 0, failed: 0, skipped: 0 });
      expect(retry.code).toBe(0);
      // Without --only-failed the ok row would be refused as taken: the loop must not do that.
      const whole = await cli(dir, ['collection', 'add', '--file', 'r.csv', '--store', 's']);
      expect(whole.code).toBe(1);
      expect(whole.stderr).toMatch(/\[phys2027\].*810/);
    }));

  it('the report of a JSON file names no fields: refused saying a way that works, which does (trial21 f04)', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'c.json'), JSON.stringify({ ExternalId: 'phys2027', Title: 'Physics 2027' }));
      expect((await cli(dir, ['collection', 'add', '--file', 'c.json', '--store', 's'])).code).toBe(0);
      for (const report of ['r.csv', 'r.xlsx']) {
        expect(
          (await cli(dir, ['collection', 'add', '--file', 'c.json', '--report', report, '--store', 's'])).code,
        ).toBe(1);
        const retry = await cli(dir, ['collection', 'add', '--file', report, '--only-failed', '--store', 's']);
        expect(retry.code).toBe(2);
        expectCoded(retry.stderr, 'E2100', `${report}`, ':1: ', '--existing ok');
      }
      const again = await cli(dir, ['collection', 'add', '--file', 'c.json', '--existing', 'ok', '--store', 's']);
      expect(again.code, again.stderr).toBe(0);
    }));

  it('needs the report as --file', () =>
    withTempDir(async (dir) => {
      const run = await cli(dir, ['collection', 'add', '--only-failed', '--title', 'T', '--store', 's']);
      expect(run.code).toBe(2);
      expectCoded(run.stderr, 'E2000', '--only-failed', '--file');
    }));
});
