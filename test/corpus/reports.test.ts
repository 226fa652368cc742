import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, expectNoStack, inTempDir, parseCsv, parseReport } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Run reports against the contract: --json on stdout only, --report x.json equal to it, the CSV
// report neutralised and valid input again (--only-failed), and no secret anywhere.

const FORMULA_START = /^[=+\-@\t\r]/;

describe('CSV report of formula-looking values', () => {
  it('neutralises every formula cell, keeps the columns, and is valid input again', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const report = join(dir, 'result.csv');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('formulas.csv'), '--report', report, '--store', store],
        dir,
      );
      expectNoStack(run);
      expect(run.code).toBe(1);
      // Without --json nothing but results goes to stdout, and a write run has none.
      expect(run.stdout).toBe('');
      const rows = parseCsv(await readFile(report, 'utf8'));
      expect(rows[0]).toEqual([
        'ExternalId',
        'FirstName',
        'LastName',
        'Email',
        'Role',
        'Hierarchies',
        'Company',
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
      ]);
      expect(rows.slice(1).map((r) => r[7])).toEqual(['ok', 'failed', 'ok']);
      for (const row of rows) for (const cell of row) expect(cell).not.toMatch(FORMULA_START);
      expect(rows[1]![1]).toBe(`'=HYPERLINK("http://evil.example","click")`);
      expect(rows[2]!.slice(1, 3)).toEqual(["'+1", "'-2"]);
      expect(rows[2]![8]).toBe('209');

      // Fed back with --only-failed: only the failed row (line 3) is read, and it fails the same way.
      const again = await examctl(
        ['user', 'sync', '--file', report, '--only-failed', '--dry-run', '--json', '--store', store],
        dir,
      );
      const doc = parseReport(again);
      expect(doc.items.map((i) => [i.source.line, i.id, i.status, i.errors.map((e) => e.code)])).toEqual([
        [3, 'cx-2', 'failed', [209]],
      ]);
      expect(again.code).toBe(1);
    });
  });
});

describe('a run report CSV fed back with --only-failed', () => {
  it('sends only the rows whose status is not ok, with their original line numbers', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const retry = join(dir, 'retry.csv');
      const run = await examctl(
        [
          'user',
          'sync',
          '--file',
          corpus('report-as-input.csv'),
          '--only-failed',
          '--json',
          '--report',
          retry,
          '--store',
          store,
        ],
        dir,
      );
      const doc = parseReport(run);
      expect(doc.items.map((i) => [i.source.line, i.id, i.status])).toEqual([
        [3, 'cx-2', 'ok'],
        [4, 'cx-3', 'failed'],
      ]);
      expect(doc.items[1]!.errors.map((e) => [e.field, e.code])).toEqual([['LastName', 212]]);
      expect(run.code).toBe(1);
      // The new report is the rows that still need work (docs/cli.md), its status columns
      // replaced, not duplicated.
      const rows = parseCsv(await readFile(retry, 'utf8'));
      expect(rows[0]!.filter((h) => h === 'status')).toHaveLength(1);
      expect(
        rows.slice(1).map((r) => [r[0], r[rows[0]!.indexOf('status')], r[rows[0]!.indexOf('error_codes')]]),
      ).toEqual([['cx-3', 'failed', '212']]);
      // cx-1 (ok before) was not sent: the store does not know it.
      const exported = await examctl(['local', 'export', '--store', store], dir);
      const world = JSON.parse(exported.stdout) as { Users: { ExternalId: string }[] };
      const ids = world.Users.map((u) => u.ExternalId);
      expect(ids).toContain('cx-2');
      expect(ids).not.toContain('cx-1');
    });
  });
});

describe('--json and --report x.json', () => {
  it('print the same single document; the JSON report names the target', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const file = join(dir, 'r.json');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('booleans.csv'), '--json', '--report', file, '--store', store],
        dir,
      );
      const doc = parseReport(run);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(doc);
      expect(doc.target).toEqual({ kind: 'local', store });
      expect(doc.summary).toMatchObject({
        total: 13,
        ok: 12,
        partial: 0,
        failed: 1,
        skipped: 0,
        created: 12,
        updated: 0,
      });
      // Human output went to stderr, naming the target.
      expect(run.stderr).toContain(store);
    });
  });

  it('a JSON-input CSV report has file, line, id, status columns', async () => {
    await inTempDir(async (dir) => {
      const file = join(dir, 'r.csv');
      const run = await examctl(
        ['user', 'sync', '--file', corpus('crlf.ndjson'), '--dry-run', '--report', file, '--store', join(dir, 's')],
        dir,
      );
      expect(run.code).toBe(1);
      const rows = parseCsv(await readFile(file, 'utf8'));
      expect(rows[0]).toEqual([
        'file',
        'line',
        'id',
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
      ]);
      expect(rows.slice(1).map((r) => [r[1], r[2], r[3], r[4]])).toEqual([
        // A dry run's report never says ok (nothing was sent): valid / invalid.
        ['1', 'cx-1', 'valid', ''],
        ['2', 'cx-2', 'valid', ''],
        ['3', 'cx-3', 'invalid', '209'],
      ]);
    });
  });
});

const SECRETS = ['Corpus-Secret-Alpha-1', 'Corpus-Secret-Gamma-3', 'Corpus-Secret-Json-1'];

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

describe('passwords are never echoed', () => {
  it('not on stdout, stderr (even --debug), the JSON report, the store or its export', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      const texts: string[] = [];
      for (const [file, extra] of [
        ['passwords.csv', ['--report', join(dir, 'p.json')]],
        ['passwords.json', ['--report', join(dir, 'pj.json'), '--debug']],
        ['passwords.csv', ['--dry-run', '--debug']],
      ] as const) {
        const run = await examctl(['user', 'sync', '--file', corpus(file), '--json', ...extra, '--store', store], dir);
        expect(run.code).toBe(1);
        texts.push(run.stdout, run.stderr);
      }
      const exported = await examctl(['local', 'export', '--store', store], dir);
      expect(exported.code).toBe(0);
      texts.push(exported.stdout, exported.stderr);
      // The store keeps only salted hashes.
      expect(exported.stdout).toMatch(/"PasswordHash": "scrypt\$/);
      for (const path of await filesUnder(dir)) {
        if (path.endsWith('.csv')) continue; // CSV reports: csv-report-echoes-passwords.test.ts
        texts.push(await readFile(path, 'utf8'));
      }
      for (const text of texts) {
        for (const secret of SECRETS) expect(text).not.toContain(secret);
        // The short one (247) must not be quoted back in the message either.
        expect(text).not.toMatch(/\bSec4\b/);
      }
    });
  });
});
