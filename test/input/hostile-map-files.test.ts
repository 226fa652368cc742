/**
 * Map files as an attacker (or a slip) writes them, through the real CLI: each ends in a clear
 * refusal (exit 2 naming the file and the limit) or a bounded run, never an internal error; a token
 * file given as a map file shows none of its characters in any sink (stdout, stderr, --json, the
 * report file). The one JSON scanner's limits: system/json-scan.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { MAP_FILE_MAX_COLUMNS, MAP_FILE_MAX_ENTRIES, MAP_TEMPLATE_MAX_COLUMNS } from '../../src/input/map-file.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { expectCoded } from '../support/coded-message.js';

async function run(dir: string, args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const io = testDeps(dir, {}, {});
  const code = await runCli(['--store', join(dir, 'store'), ...args], io.deps);
  return { code, stderr: io.stderr.text, stdout: io.stdout.text };
}

const CSV = 'Student ID,Given name,Surname,E-Mail,Dept\nS-1,Ann,Lee,ann@example.test,Maths\n';
const BASE = { 'Student ID': 'ExternalId', 'Given name': 'FirstName', Surname: 'LastName', 'E-Mail': 'Email' };

/** `user sync --dry-run` of `csv` with `map` (text) as the map file. */
async function withMap(dir: string, map: string, csv = CSV, ...flags: string[]) {
  await writeFile(join(dir, 'u.csv'), csv);
  await writeFile(join(dir, 'map.json'), map);
  return run(dir, ['user', 'sync', '--file', 'u.csv', '--map-file', 'map.json', '--dry-run', ...flags]);
}

describe('a hostile map file is refused, exit 2, naming the file and the limit', () => {
  it('nested 4,000 deep in 8 KB: no stack overflow', () =>
    withTempDir(async (dir) => {
      const { code, stderr } = await withMap(dir, `{"a": ${'['.repeat(4000)}${']'.repeat(4000)}}`);
      expect(code, stderr).toBe(2);
      expectCoded(stderr, 'E2100', '--map-file map.json:1', '64 levels', 'column 70');
    }));

  it('150,000 entries under the size limit, and more columns than a map file holds', () =>
    withTempDir(async (dir) => {
      const many = await withMap(
        dir,
        `{${Array.from({ length: 150_000 }, (_, i) => `"c${i}":"ExternalId"`).join(',')}}`,
      );
      expect(many.code, many.stderr).toBe(2);
      expect(many.stderr).toMatch(
        new RegExp(
          `^examctl: E2100: --map-file map\\.json:1: too many entries: more than ${MAP_FILE_MAX_ENTRIES.toLocaleString('en-US')} `,
        ),
      );
      const wide = await withMap(
        dir,
        JSON.stringify(
          Object.fromEntries(Array.from({ length: MAP_FILE_MAX_COLUMNS + 1 }, (_, i) => [`c${i}`, 'ExternalId'])),
        ),
      );
      expect(wide.code, wide.stderr).toBe(2);
      expectCoded(wide.stderr, 'E2100', 'map.json: ', '5,001 entries', MAP_FILE_MAX_COLUMNS.toLocaleString('en-US'));
    }));

  it('a template that would expand past any string is refused by its columns; one that makes too long a value fails its row', () =>
    withTempDir(async (dir) => {
      const huge = await withMap(dir, JSON.stringify({ ...BASE, UserName: { template: '{Dept}'.repeat(600_000) } }));
      expect(huge.code, huge.stderr).toBe(2);
      expectCoded(
        huge.stderr,
        'E2100',
        '--map-file map.json:1',
        '"UserName" > "template"',
        `${MAP_TEMPLATE_MAX_COLUMNS} columns`,
      );
      const long = await withMap(
        dir,
        JSON.stringify({ ...BASE, UserName: { template: '{Dept}'.repeat(MAP_TEMPLATE_MAX_COLUMNS) } }),
        `${CSV.split('\n')[0]}\nS-1,Ann,Lee,ann@example.test,${'m'.repeat(20_000)}\n`,
      );
      expect(long.code, long.stderr).toBe(1);
      expect(long.stderr).toContain(
        'the template of --map-file map.json:1 "UserName" makes a value of 2,000,000 characters, more than the 1,000,000 characters a computed value may have',
      );
    }));

  it('a token file given as a map file: none of its characters in stdout, stderr, --json or the report', () =>
    withTempDir(async (dir) => {
      const token = 'ghp_Zq8xV3kLm9Tn2Rw5Yb7Hc4Jd6Fs1Ga0Pe';
      const outputs: string[] = [];
      for (const flags of [[], ['--json'], ['--report', 'r.json'], ['--json', '--report', 'r.csv']]) {
        const { code, stdout, stderr } = await withMap(dir, `${token}\n`, CSV, ...flags);
        expect(code, stderr).toBe(2);
        outputs.push(stdout, stderr);
        for (const report of ['r.json', 'r.csv']) {
          try {
            outputs.push(readFileSync(join(dir, report), 'utf8'));
          } catch {
            // No report written for a refused map file: nothing to leak there.
          }
        }
      }
      expectCoded(outputs.join('\n'), 'E2100', 'map.json:1', 'JSON', 'column 1');
      // No piece of 3 characters of the token, anywhere.
      for (const text of outputs)
        for (let at = 0; at + 3 <= token.length; at++) expect(text).not.toContain(token.slice(at, at + 3));
    }));

  it('a // note nested deep hides no key mapped twice: refused for its depth, or the key named', () =>
    withTempDir(async (dir) => {
      const deep = await withMap(
        dir,
        `{"Student ID":"ExternalId","//":${'['.repeat(1200)}${']'.repeat(1200)},"Student ID":"LastName"}`,
      );
      expect(deep.code, deep.stderr).toBe(2);
      expect(deep.stderr).toContain('map.json:1: nested too deep');
      const nested = await withMap(
        dir,
        `{\n"Student ID":"ExternalId",\n"//":{"a":${'['.repeat(40)}${']'.repeat(40)}},\n"Student ID":"LastName"\n}`,
      );
      expect(nested.code, nested.stderr).toBe(2);
      expect(nested.stderr).toContain('map.json:4: "Student ID" is mapped twice (first on line 2)');
    }));
});

describe('a map file within the limits', () => {
  it('a 4 MB word in a value table is quoted cut in each of 200 failing rows: the report stays small', () =>
    withTempDir(async (dir) => {
      const word = 'w'.repeat(4_000_000);
      const rows = Array.from({ length: 200 }, (_, i) => `S-${i},Ann,Lee,a${i}@example.test,Unknown`);
      const map = JSON.stringify({ ...BASE, Dept: { field: 'Hierarchies', values: { [word]: 'DEPT-X' } } });
      const { code, stderr } = await withMap(
        dir,
        map,
        `${CSV.split('\n')[0]}\n${rows.join('\n')}\n`,
        '--report',
        'r.json',
      );
      expect(code, stderr.slice(0, 500)).toBe(1);
      const report = readFileSync(join(dir, 'r.json'), 'utf8');
      expect(statSync(join(dir, 'r.json')).size).toBeLessThan(2 * 1024 * 1024);
      expect(stderr.length).toBeLessThan(2 * 1024 * 1024);
      // As the JSON report writes the message: its quotes escaped.
      const said = JSON.stringify(`(known: "${'w'.repeat(59)}…" (4,000,000 characters))`).slice(1, -1);
      expect(report.split(said).length - 1).toBe(200);
    }));

  it('a __proto__ column is a column like any other: its flag is given, its word translated', () =>
    withTempDir(async (dir) => {
      const map = `{"Student ID":"ExternalId","Given name":"FirstName","Surname":"LastName","E-Mail":"Email",
        "Hierarchies":{"column":"Dept","values":{"__proto__":"DEPT-P","Maths":"DEPT-M"},"flags":{"__proto__":"coordinator"}}}`;
      const csv =
        'Student ID,Given name,Surname,E-Mail,Dept,__proto__\nS-1,Ann,Lee,ann@example.test,Maths,Y\nS-2,Bo,Ng,bo@example.test,__proto__,N\n';
      const { code, stdout, stderr } = await withMap(dir, map, csv, '--json');
      expect(code, stderr).toBe(0);
      const items = (
        JSON.parse(stdout) as { items: { mapped?: { field: string; value: string; from: Record<string, string> }[] }[] }
      ).items;
      expect(items.map((item) => item.mapped?.[0]?.value)).toEqual(['DEPT-M:coordinator', 'DEPT-P']);
      expect(Object.entries(items[0]?.mapped?.[0]?.from ?? {})).toEqual([
        ['Dept', 'Maths'],
        ['__proto__', 'Y'],
      ]);
    }));
});
