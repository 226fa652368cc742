import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorsSection, renderErrorBlocks } from '../../scripts/doc-tables.js';
import { runCli } from '../../src/cli/run-cli.js';
import { ERROR_CODES, errorCodeEntry } from '../../src/system/error-codes.js';
import { ROOT } from '../support/cli.js';
import { expectCoded } from '../support/coded-message.js';
import { lineWith } from '../support/facts.js';
import { ITEM_CODES, ITEM_CODE_TEXT } from '../../src/domain/codes.js';
import { errorLine, TargetError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from './helpers.js';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/command-tree.js';
import { COMMANDS } from '../../src/cli/program.js';

/**
 * The codes of the messages that end a run (src/system/error-codes.ts, docs/errors.md).
 *
 * `examctl explain CODE` prints an entry of src/system/error-codes.ts; docs/errors.md is made from the same table. */
describe('examctl explain', () => {
  it('prints the code, its exit, its cause and its fix; any case', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'e3020'], io.deps)).toBe(0);
      expect(io.stdout.text).toContain('E3020:');
      expect(io.stdout.text).toContain('(exit 3)');
      expect(io.stdout.text).toContain(`Cause: ${ERROR_CODES.E3020.cause}`);
      expect(io.stdout.text).toContain(`Fix: ${ERROR_CODES.E3020.fix}`);
    }));

  it("E3020's fix is the refusal's: a lock of another host (a shared folder) is never taken over, its LOCK is removed", () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E3020'], io.deps)).toBe(0);
      const fix = io.stdout.text.slice(io.stdout.text.indexOf('Fix:'));
      expect(fix).toContain('another host');
      expect(fix).toContain('LOCK');
    }));

  it('--json: the entry as one document', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E2101', '--json'], io.deps)).toBe(0);
      expect(JSON.parse(io.stdout.text)).toEqual({ code: 'E2101', exit: 2, ...ERROR_CODES.E2101 });
    }));

  it('an unknown code: exit 2 with its own code, E2004, in the text and in --json', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E2999'], io.deps)).toBe(2);
      expect(io.stderr.text).toMatch(/^examctl: E2004: .*"E2999"/);
      const json = testDeps(dir);
      expect(await runCli(['explain', 'nope', '--json'], json.deps)).toBe(2);
      expect(JSON.parse(json.stdout.text).error).toMatchObject({ code: 'E2004', exitCode: 2 });
    }));

  it("a record's code a run printed (the API's 209, examctl's warning 9007): its condition, its exit, where it is listed", () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', '209'], io.deps)).toBe(0);
      expect(lineWith(io.stdout.text, '209: ', 'email', '(exit 1)')).toMatch(/^209: /);
      expect(io.stdout.text).toContain('docs/api-reference.md');
      expect(io.stdout.text).toContain('--only-failed');
      const json = testDeps(dir);
      expect(await runCli(['explain', '9007', '--json'], json.deps)).toBe(0);
      expect(JSON.parse(json.stdout.text)).toMatchObject({ code: '9007', title: 'wider than api text', exit: 0 });
      expect(JSON.parse(json.stdout.text).cause).toContain('--strict');
      const own = testDeps(dir);
      expect(await runCli(['explain', '9010', '--json'], own.deps)).toBe(0);
      expect(JSON.parse(own.stdout.text)).toEqual({
        code: '9010',
        exit: 1,
        title: 'schedule rows disagree',
        ...ITEM_CODE_TEXT.ScheduleRowsDisagree,
      });
      // An item a stopped run did not send: the run's own code gives the exit.
      const skipped = testDeps(dir);
      expect(await runCli(['explain', '9025'], skipped.deps)).toBe(0);
      expect(skipped.stdout.text).toMatch(/^9025: not sent run stopped \(exit of the run's error\)/);
      // A code of a command that reads one object: the fix is the id given, not a report fed back.
      const session = testDeps(dir);
      expect(await runCli(['explain', '1101'], session.deps)).toBe(0);
      expect(session.stdout.text).toContain('review-session show');
      expect(session.stdout.text).not.toContain('--only-failed');
      const none = testDeps(dir);
      expect(await runCli(['explain', '208'], none.deps)).toBe(2);
      expect(none.stderr.text).toMatch(/^examctl: E2004: .*"208"/);
    }));
});

describe('the table of codes', () => {
  it("each code is E and four digits, led by its exit status's digits", () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^E\d{4}$/);
      expect([2, 3, 70, 130, 141], code).toContain(errorCodeEntry(code)?.exit);
      expect(entry.cause.length, code).toBeGreaterThan(20);
      expect(entry.fix.length, code).toBeGreaterThan(10);
    }
  });

  it('every flag a cause or a fix names is a flag of some command (run codes and record codes alike)', () => {
    const flags = new Set(['--help']);
    const collect = (command: Command): void => {
      for (const option of command.options) if (option.long) flags.add(option.long);
      for (const sub of command.commands) collect(sub);
    };
    collect(buildProgram(testDeps('/').deps, () => undefined, COMMANDS));
    const texts = [...Object.entries(ERROR_CODES), ...Object.entries(ITEM_CODE_TEXT)];
    const unknown = texts.flatMap(([code, { cause, fix }]) =>
      [...`${cause} ${fix}`.matchAll(/(?<![\w-])--[a-z][a-z-]*[a-z]/g)]
        .map(([flag]) => flag)
        .filter((flag) => !flags.has(flag))
        .map((flag) => `${code}: ${flag}`),
    );
    expect(unknown).toEqual([]);
  });

  it('docs/errors.md holds every entry, as npm run docs:flags writes it', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const { blocks } = renderErrorBlocks(doc);
    expect(blocks).toEqual([
      { marker: 'codes', upToDate: true },
      { marker: 'items', upToDate: true },
    ]);
    for (const code of Object.values(ITEM_CODES)) expect(errorsSection('items')).toContain(`### ${code}\n`);
    for (const code of Object.keys(ERROR_CODES)) expect(errorsSection('codes')).toContain(`### ${code}\n`);
  });
});

/** A run's first stderr line's code, and its --json document's. */
async function codeOf(dir: string, argv: readonly string[], env: Record<string, string> = {}): Promise<string[]> {
  const text = testDeps(dir, {}, env);
  await runCli(argv, text.deps);
  const json = testDeps(dir, {}, env);
  await runCli([...argv, '--json'], json.deps);
  return [
    /^examctl: (E\d{4}): /m.exec(text.stderr.text)?.[1] ?? text.stderr.text,
    json.stdout.text === '' ? json.stderr.text : JSON.parse(json.stdout.text).error?.code,
  ];
}

describe('codes a command line produces, in the text and in --json', () => {
  it('E2002 a group without its command, E2003 --help with --json', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['user', '--json'], io.deps)).toBe(2);
      expect(JSON.parse(io.stdout.text).error.code).toBe('E2002');
      const help = testDeps(dir);
      expect(await runCli(['--help', '--json'], help.deps)).toBe(2);
      expectCoded(help.stderr.text, 'E2003', '--json', '--help');
    }));

  it('E2001 a threshold that is neither a count nor a percentage: refused as the command line is read, no file read', () =>
    withTempDir(async (dir) => {
      const runs = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      for (const [flag, needs] of [
        ['--max-disable', '--disable-missing'],
        ['--max-prune', '--prune-memberships'],
      ]) {
        // The file does not exist: a refusal of the flag after reading would be E2101.
        const argv = ['user', 'sync', '--file', 'absent.csv', '--target', 'local', needs!, flag!, '5x', '--dry-run'];
        expect(await codeOf(dir, argv, runs)).toEqual(['E2001', 'E2001']);
        const io = testDeps(dir, {}, runs);
        expect(await runCli(argv, io.deps)).toBe(2);
        expectCoded(io.stderr.text, 'E2001', flag!, '"5x"');
      }
    }));

  it('E2008 a remote send with no token or no base URL: each message names what is missing', () =>
    withTempDir(async (dir) => {
      const send = ['user', 'sync', '--file', join(ROOT, 'fixtures/users.csv'), '--target', 'remote'];
      const runs = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_CONFIG_DIR: join(dir, 'config') };
      const url = ['--base-url', 'http://127.0.0.1:1'];
      expect(await codeOf(dir, [...send, ...url, '--yes'], runs)).toEqual(['E2008', 'E2008']);
      expect(await codeOf(dir, [...send, ...url, '--no-input'], runs)).toEqual(['E2008', 'E2008']);
      expect(await codeOf(dir, [...send, '--yes'], { ...runs, EXAMCTL_TOKEN: 't' })).toEqual(['E2008', 'E2008']);
      const token = testDeps(dir, {}, runs);
      expect(await runCli([...send, ...url, '--yes'], token.deps)).toBe(2);
      expectCoded(token.stderr.text, 'E2008', 'EXAMCTL_TOKEN', '--token-file');
      const base = testDeps(dir, {}, { ...runs, EXAMCTL_TOKEN: 't' });
      expect(await runCli([...send, '--yes'], base.deps)).toBe(2);
      expectCoded(base.stderr.text, 'E2008', 'EXAMCTL_BASE_URL', '--base-url');
    }));

  it('E2101 a missing input file, E2102 a directory given as one: each names the path', () =>
    withTempDir(async (dir) => {
      const missing = ['user', 'sync', '--file', 'nope.csv', '--target', 'local'];
      expect(await codeOf(dir, missing)).toEqual(['E2101', 'E2101']);
      // The export a CI job imports is an input file too (found by a trial: it was E2000, kind usage).
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      expect(await codeOf(dir, ['synced', 'import', 'nope.json', '--target', 'local'], env)).toEqual([
        'E2101',
        'E2101',
      ]);
      mkdirSync(join(dir, 'folder.csv'));
      expect(await codeOf(dir, ['user', 'sync', '--file', 'folder.csv', '--target', 'local'])).toEqual([
        'E2102',
        'E2102',
      ]);
    }));

  it('E2005 a remote send nobody confirmed, E3002 one that reached nobody, E2200 not a run id, E2201 no such run, E2300 a store already there, E2400 an open store, E3030 a damaged one', () =>
    withTempDir(async (dir) => {
      const remote = ['user', 'sync', '--file', join(ROOT, 'fixtures/users.csv'), '--base-url', 'http://127.0.0.1:1'];
      expect(await codeOf(dir, [...remote, '--no-input'], { EXAMCTL_TOKEN: 't' })).toEqual(['E2005', 'E2005']);
      const runs = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      expect(await codeOf(dir, ['runs', 'show', '20261122T110502.481Z-3f9a'], runs)).toEqual(['E2201', 'E2201']);
      expect(await codeOf(dir, ['runs', 'show', 'nosuch'], runs)).toEqual(['E2200', 'E2200']);
      const sent = await codeOf(dir, [...remote, '--yes'], { ...runs, EXAMCTL_TOKEN: 't' });
      expect(sent).toEqual(['E3002', 'E3002']);
      expect(await runCli(['local', 'init', '--store', 'store'], testDeps(dir).deps)).toBe(0);
      expect(await codeOf(dir, ['local', 'init', '--store', 'store'])).toEqual(['E2300', 'E2300']);
      mkdirSync(join(dir, 'open'));
      chmodSync(join(dir, 'open'), 0o777);
      expect(await codeOf(dir, ['local', 'init', '--store', 'open/store'])).toEqual(['E2400', 'E2400']);
      mkdirSync(join(dir, 'damaged'));
      writeFileSync(join(dir, 'damaged/CURRENT'), 'garbage\n');
      expect(await codeOf(dir, ['local', 'export', '--store', 'damaged'])).toEqual(['E3030', 'E3030']);
    }));

  it('E2503 over --max-disable; E2504 a memory of another target, E2505 of a newer examctl; E2502 an old file run again', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const users = readFileSync(join(ROOT, 'fixtures/users.csv'), 'utf8').split('\n');
      writeFileSync(join(dir, 'users.csv'), users.join('\n'));
      writeFileSync(join(dir, 'few.csv'), [users[0], users[1], users[4], ''].join('\n'));
      const sync = (file: string) => ['user', 'sync', '--file', file, '--target', 'local'];
      expect(await runCli(['local', 'init'], testDeps(dir, {}, env).deps)).toBe(0);
      expect(await runCli(sync('users.csv'), testDeps(dir, {}, env).deps)).toBe(0);
      const over = await codeOf(dir, [...sync('few.csv'), '--disable-missing', '--max-disable', '1'], env);
      expect(over).toEqual(['E2503', 'E2503']);
      const exported = ['synced', 'export', '--target', 'local', '--out', 'm.json'];
      expect(await runCli(exported, testDeps(dir, {}, env).deps)).toBe(0);
      expect(await runCli(['local', 'init', '--store', 'other'], testDeps(dir, {}, env).deps)).toBe(0);
      expect(await codeOf(dir, ['synced', 'import', 'm.json', '--store', 'other'], env)).toEqual(['E2504', 'E2504']);
      const newer = { ...JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')), version: 999 };
      writeFileSync(join(dir, 'newer.json'), JSON.stringify(newer));
      expect(await codeOf(dir, ['synced', 'import', 'newer.json', '--target', 'local'], env)).toEqual([
        'E2505',
        'E2505',
      ]);
      writeFileSync(join(dir, 'users2.csv'), [users[0], users[1], users[2], ''].join('\n'));
      const users2 = [...sync('users2.csv'), '--disable-missing', '--max-disable', '100%'];
      expect(await runCli(users2, testDeps(dir, {}, env).deps)).toBe(0);
      const again = [...sync('users.csv'), '--disable-missing', '--max-disable', '100%'];
      expect(await codeOf(dir, again, env)).toEqual(['E2502', 'E2502']);
    }));

  it('E2506 an export older than the memory there, E2504 one of the store this path held before', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const users = readFileSync(join(ROOT, 'fixtures/users.csv'), 'utf8').split('\n');
      writeFileSync(join(dir, 'users.csv'), users.join('\n'));
      writeFileSync(join(dir, 'users2.csv'), [users[0], users[1], ''].join('\n'));
      const sync = (file: string) => ['user', 'sync', '--file', file, '--target', 'local'];
      expect(await runCli(['local', 'init'], testDeps(dir, {}, env).deps)).toBe(0);
      expect(await runCli(sync('users.csv'), testDeps(dir, {}, env).deps)).toBe(0);
      const exported = ['synced', 'export', '--target', 'local', '--out', 'm.json'];
      expect(await runCli(exported, testDeps(dir, {}, env).deps)).toBe(0);
      expect(await runCli(sync('users2.csv'), testDeps(dir, {}, env).deps)).toBe(0);
      const importing = ['synced', 'import', 'm.json', '--target', 'local'];
      expect(await codeOf(dir, importing, env)).toEqual(['E2506', 'E2506']);
      expect(await runCli(['local', 'init', '--force'], testDeps(dir, {}, env).deps)).toBe(0);
      expect(await codeOf(dir, importing, env)).toEqual(['E2504', 'E2504']);
    }));

  it('E2301 no store where the sync memory names one (deleted, moved, not mounted): nothing made', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const sync = ['user', 'sync', '--file', join(ROOT, 'fixtures/users.csv'), '--target', 'local'];
      expect(await runCli(sync, testDeps(dir, {}, env).deps)).toBe(0);
      rmSync(join(dir, '.examctl-store'), { recursive: true });
      expect(await codeOf(dir, sync, env)).toEqual(['E2301', 'E2301']);
      expect(existsSync(join(dir, '.examctl-store'))).toBe(false);
    }));
});

describe("E2302: a read of a store that is not there, in each reading command's words", () => {
  it.each([
    [['local', 'export'], 'examctl local init'],
    [['schedule', 'links', 'S-1'], 'schedule push'],
    [['review-session', 'show', 'RS-1', '--dry-run'], 'dry run'],
    [['synced', 'adopt', '--file', join(ROOT, 'fixtures/users.csv')], 'nothing to adopt'],
  ])('%s: the path named, nothing made', (argv, words) =>
    withTempDir(async (dir) => {
      const store = join(dir, 'nowhere');
      expect(await codeOf(dir, [...argv, '--store', store])).toEqual(['E2302', 'E2302']);
      const io = testDeps(dir);
      expect(await runCli([...argv, '--store', store], io.deps)).toBe(2);
      expectCoded(io.stderr.text, 'E2302', `no local store at ${store}:`, words);
      expect(existsSync(store)).toBe(false);
    }),
  );
});

describe('a second error said beside the one a run ends with', () => {
  it("carries its code when it is examctl's (a memory not saved under a Ctrl-C), none otherwise", () => {
    const unsaved = new TargetError('the sync memory was not saved to http://127.0.0.1:1/state', { code: 'E3050' });
    expect(errorLine(unsaved)).toMatch(/^examctl: E3050: /);
    expect(errorLine(unsaved)).toContain('http://127.0.0.1:1/state');
    expect(errorLine(new Error('EIO'))).toBe('examctl: EIO');
  });
});
