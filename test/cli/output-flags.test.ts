import { describe, expect, it } from 'vitest';
import { copyFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';
import { testDeps, withTempDir } from './helpers.js';

const USERS = resolve(__dirname, '../../fixtures/users.csv');

describe('-o json wherever --json is; conflicting output flags refused', () => {
  it('-o json makes a dry run print its JSON report, as --json does', () =>
    withTempDir(async (dir) => {
      await copyFile(USERS, join(dir, 'users.csv'));
      const io = testDeps(dir);
      const code = await runCli(
        ['--store', join(dir, 'none'), 'user', 'sync', '--file', 'users.csv', '--dry-run', '-o', 'json'],
        io.deps,
      );
      expect(code).toBeLessThan(2);
      const report = JSON.parse(io.stdout.text) as { dryRun: boolean; summary: { total: number } };
      expect(report.dryRun).toBe(true);
      expect(report.summary.total).toBeGreaterThan(0);
    }));

  it.each([
    [['--json', 'template', 'users']],
    [['template', 'users', '--json']],
    [['template', 'users', '-o', 'json']],
  ])('%j prints the template as one JSON document, never its default CSV', (argv) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(argv, io.deps)).toBe(0);
      expect(JSON.parse(io.stdout.text)).toEqual([expect.objectContaining({ ExternalId: expect.any(String) })]);
    }),
  );

  it('-o before the command works too', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['-o', 'json', 'config', 'list'], io.deps)).toBe(0);
      expect(() => JSON.parse(io.stdout.text)).not.toThrow();
    }));

  it.each([
    [['--json', 'review-session', 'show', 'RS-1', '-o', 'csv'], 'conflicting output flags: --json and -o csv'],
    [['user', 'sync', '--file', 'x.csv', '-o', 'csv'], 'prints only json'],
    [['-o', 'yaml', 'review-session', 'show', 'RS-1'], 'choose one of table, json, csv'],
  ])('%j is a usage error (exit 2) before anything runs', (argv, message) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(argv, io.deps)).toBe(2);
      expect(io.stderr.text).toContain(message);
      // Only a run that asked for JSON (--json) gets the error document; the others print nothing.
      if (argv.includes('--json')) expectOnlyErrorDocument(io.stdout.text, 2);
      else expect(io.stdout.text).toBe('');
    }),
  );
});

describe('a command group without its command', () => {
  it.each([
    [['--json', 'user'], 'missing command: examctl user <command>, one of sync'],
    [['--json', 'local'], 'missing command: examctl local <command>, one of init, export, serve'],
    [['--json'], 'missing command: examctl <command>, one of schedule, user'],
    // An option's value that names a group is not taken for the group.
    [['--json', '--store', 'runs', 'user'], 'missing command: examctl user <command>, one of sync'],
  ])('%j is a usage error whose JSON document names what is missing', (argv, message) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(argv, io.deps)).toBe(2);
      expectOnlyErrorDocument(io.stdout.text, 2);
      const document = JSON.parse(io.stdout.text) as { error: { message: string } };
      expect(document.error.message).toContain(message);
      expect(document.error.message).not.toContain('outputHelp');
    }),
  );
});

describe('--out <file> without -o: the format its extension names', () => {
  const head = async (file: string): Promise<string> => (await readFile(file)).subarray(0, 40).toString('latin1');
  it.each([
    ['r.xlsx', (text: string) => expect(text.startsWith('PK\x03\x04')).toBe(true)],
    ['r.CSV', (text: string) => expect(text).toMatch(/^\ufeff?CandidateExtId,|^\xef\xbb\xbfCandidateExtId,/)],
    ['r.json', (text: string) => expect(text).toMatch(/^\{\s*"ExternalId": "RS-MATH1-OCT"/)],
    ['r.txt', (text: string) => expect(text).toMatch(/^\u250c|^\xe2\x94\x8c/)],
  ] as const)('review-session show --out %s', (name, check) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(
        await runCli(
          ['--target', 'local', '--store', join(dir, 'store'), 'review-session', 'show', 'RS-MATH1-OCT', '--out', name],
          io.deps,
        ),
        io.stderr.text,
      ).toBe(0);
      check(await head(join(dir, name)));
    }),
  );

  it('template --out u.xlsx writes a workbook; an explicit -o still wins', () =>
    withTempDir(async (dir) => {
      expect(await runCli(['template', 'users', '--out', 'u.xlsx'], testDeps(dir).deps)).toBe(0);
      expect((await head(join(dir, 'u.xlsx'))).startsWith('PK\x03\x04')).toBe(true);
      expect(await runCli(['template', 'users', '-o', 'csv', '--out', 'v.xlsx'], testDeps(dir).deps)).toBe(0);
      expect(await head(join(dir, 'v.xlsx'))).toMatch(/ExternalId,/);
    }));
});
