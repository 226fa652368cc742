import { describe, expect, it } from 'vitest';
import { copyFile } from 'node:fs/promises';
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
      const code = await runCli(['--store', join(dir, 'none'), 'user', 'sync', '--file', 'users.csv', '--dry-run', '-o', 'json'], io.deps);
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
    }));

  it('-o before the command works too', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['-o', 'json', 'config', 'list'], io.deps, )).toBe(0);
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
    }));
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
    }));
});
