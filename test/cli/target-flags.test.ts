import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { buildProgram } from '../../src/cli/command-tree.js';
import { COMMAND_BEHAVIOURS, COMMANDS } from '../../src/cli/program.js';
import { commandName, declareCommand, type Behaviours } from '../../src/cli/command-declaration.js';
import { ExitCode, UsageError } from '../../src/system/errors.js';
import { runCli } from '../../src/cli/run-cli.js';
import { TAKEN_FLAGS } from '../../src/flags/taken-flags.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * A global flag that chooses or shapes the target, or how records are sent, given to a command that
 * never reads it, is exit 2 (E2007) before anything runs, naming the flag and the command (docs/cli.md,
 * "Global flags"): never silently dropped. The commands that read it still take it.
 */

/** Each taken flag as a user would give it, and the option a command that reads it receives. */
const FLAGS: Readonly<Record<string, { argv: readonly string[]; key: string; value: unknown }>> = {
  '--target': { argv: ['--target', 'local'], key: 'target', value: 'local' },
  '--store': { argv: ['--store', 'st'], key: 'store', value: 'st' },
  '--base-url': { argv: ['--base-url', 'http://127.0.0.1:9'], key: 'baseUrl', value: 'http://127.0.0.1:9' },
  '--token-file': { argv: ['--token-file', 't.token'], key: 'tokenFile', value: 't.token' },
  '--profile': { argv: ['--profile', 'p'], key: 'profile', value: 'p' },
  '--concurrency': { argv: ['--concurrency', '4'], key: 'concurrency', value: 4 },
  '--rate': { argv: ['--rate', '60'], key: 'rate', value: 60 },
  '--allow-insecure-http': { argv: ['--allow-insecure-http'], key: 'allowInsecureHttp', value: true },
  '--max-errors': { argv: ['--max-errors', '3'], key: 'maxErrors', value: 3 },
  '--strict': { argv: ['--strict'], key: 'strict', value: true },
  '--no-strict': { argv: ['--no-strict'], key: 'strict', value: false },
};
/** The target's flags: a command that resolves a target reads them all. */
const ALL = Object.keys(FLAGS).slice(0, 8);
/** A command that sends records also reads how: --max-errors, --strict. */
const SENDS = Object.keys(FLAGS);

/**
 * The survey (the behaviours read, command by command): one command line each, and the flags of
 * FLAGS it reads.
 */
const SURVEY: ReadonlyArray<readonly [argv: string, reads: readonly string[]]> = [
  ['schedule push -f s.csv', SENDS],
  ['schedule links S-1', ALL],
  ['user sync --file u.csv', SENDS],
  ['collection add --title T', SENDS],
  ['invigilators remove S-1 inv-1', SENDS],
  ['template users', []],
  ['schema users', []],
  ['review-session show RS-1', ALL],
  // `--target local` beside --store: what they do anyway (scripts prefix it to every command).
  ['local init', ['--store', '--target']],
  ['local export', ['--store', '--target']],
  ['local serve', ['--store', '--target']],
  ['doctor', ALL],
  // Its --strict is kept in the profile.
  [
    'config set-profile q',
    ['--base-url', '--token-file', '--concurrency', '--rate', '--allow-insecure-http', '--strict', '--no-strict'],
  ],
  ['config list', []],
  ['config remove q', []],
  ['config use q', []],
  ['config show', []],
  ['runs list', []],
  // A journal of an older examctl records no profile: today's is read for its input.
  ['runs show last', ['--profile']],
  // Its --strict and --max-errors are the run's own.
  ['runs resume last', ALL],
  ['runs prune', []],
  ['synced show', []],
  ['synced forget', ALL],
  ['synced export --out m.json', ALL],
  ['synced import m.json', ALL],
  ['synced adopt -f staff.csv', ALL],
  ['synced adopt-schedules -f sittings.csv', ALL],
  ['synced adopt-collections -f c.json', ALL],
  ['synced unlock 6f1c', []],
  ['login', ['--profile', '--base-url', '--allow-insecure-http']],
  ['completion fish', []],
  ['explain E3020', []],
  ['apply plan.json', SENDS],
];

/** The program with every behaviour replaced by a recorder: nothing runs. */
async function parse(argv: readonly string[]): Promise<Record<string, unknown>> {
  let received: Record<string, unknown> | undefined;
  const recorders: Behaviours = new Map(
    [...COMMAND_BEHAVIOURS.keys()].map((path) => [
      path,
      { run: async () => async (options: never) => ((received = options), 0) },
    ]),
  );
  await buildProgram(testDeps('/').deps, () => undefined, COMMANDS, recorders).parseAsync([...argv], { from: 'user' });
  if (received === undefined) throw new Error(`no command ran for: ${argv.join(' ')}`);
  return received;
}

const PAIRS = SURVEY.flatMap(([argv, reads]) => ALL.map((flag) => [argv, flag, reads.includes(flag)] as const));

describe('a target or sending flag a command does not read', () => {
  it('the survey covers every global flag a command takes only by saying so (but --report and --dry-run, below)', () => {
    const surveyed = Object.keys(FLAGS).map((flag) => flag.replace('--no-', '--'));
    expect(new Set([...surveyed, '--report', '--dry-run'])).toEqual(new Set(TAKEN_FLAGS));
  });

  it("a command's own flag named as a global one is taken: the program parses it wherever it is given", () => {
    for (const declaration of COMMANDS)
      for (const spec of declaration.options ?? []) {
        const long = spec.kind === 'option' ? new Option(spec.flags).long : undefined;
        if ((TAKEN_FLAGS as readonly (string | undefined)[]).includes(long))
          expect(declaration.takes, `${commandName(declaration)} ${long}`).toContain(long);
      }
  });

  it('the survey covers every runnable command', () => {
    const surveyed = SURVEY.map(([argv]) =>
      COMMANDS.find((each) => each.options !== undefined && `${argv} `.startsWith(`${commandName(each)} `)),
    );
    const runnable = COMMANDS.filter((each) => each.options !== undefined);
    expect(new Set(surveyed).size).toBe(runnable.length);
    expect(surveyed.every((each) => each !== undefined)).toBe(true);
  });

  it.each(PAIRS)(
    '%s %s (read: %s): taken where read, else exit 2 naming it, before the command runs',
    async (argv, flag, read) => {
      const { argv: flagArgv, key, value } = FLAGS[flag]!;
      const given = [...argv.split(' '), ...flagArgv];
      const outcome = await parse(given).catch((caught: unknown) => caught);
      if (read) {
        expect(outcome).not.toBeInstanceOf(Error);
        expect((outcome as Record<string, unknown>)[key]).toEqual(value);
        return;
      }
      expect(outcome).toBeInstanceOf(UsageError);
      expect((outcome as UsageError).exitCode).toBe(ExitCode.Usage);
      const name = commandName(
        COMMANDS.find((each) => each.options !== undefined && `${argv} `.startsWith(`${commandName(each)} `))!,
      );
      expect((outcome as UsageError).code).toBe('E2007');
      expect((outcome as UsageError).message).toMatch(
        new RegExp(
          `^${flag}(: ${name} (reads no target or profile|takes [-a-z, ]+, not ${flag})| is for .*; ${name} does not take it)`,
        ),
      );
      expect((outcome as UsageError).message).toMatch(new RegExp(`[;:] leave ${flag} out$`));
    },
  );

  it('a local command takes --target local (a script prefixing its target to every command), never --target remote', async () => {
    expect(await parse(['--target', 'local', '--store', 'st', 'local', 'export'])).toMatchObject({
      target: 'local',
      store: 'st',
    });
    await expect(parse(['local', 'export', '--target', 'remote'])).rejects.toThrow(
      '--target: local export takes --store (and --target local), not --target remote; leave --target out',
    );
    await expect(parse(['--target', 'remote', 'local', 'init'])).rejects.toThrow(
      'local init takes --store (and --target local), not --target remote;',
    );
  });

  it('before or after the command alike', async () => {
    await expect(parse(['--store', 'st', 'runs', 'list'])).rejects.toThrow(
      '--store: runs list reads no target or profile; leave --store out',
    );
    await expect(parse(['runs', 'list', '--store', 'st'])).rejects.toThrow(
      '--store: runs list reads no target or profile; leave --store out',
    );
  });

  it('config set-profile and login say which target flags are the profile settings there, and that a profile keeps no store', async () => {
    await expect(
      parse(['config', 'set-profile', 'q', '--concurrency', '4', '--store', './exams', '--target', 'remote']),
    ).rejects.toThrow(
      '--target: config set-profile takes --base-url, --token-file, --concurrency, --rate, --allow-insecure-http, not --target; leave --target out',
    );
    await expect(parse(['config', 'set-profile', 'q', '--store', './exams'])).rejects.toThrow(
      '--store: config set-profile takes --base-url, --token-file, --concurrency, --rate, --allow-insecure-http, not --store (a profile keeps no store); leave --store out',
    );
    await expect(parse(['login', '--token-file', 't.token'])).rejects.toThrow(
      '--token-file: login takes --base-url, --profile, --allow-insecure-http, not --token-file (a profile keeps one: config set-profile <name> --token-file <path>); leave --token-file out',
    );
    // Only where a profile is written: runs show reads --profile, and --store there has no profile hint.
    await expect(parse(['runs', 'show', 'last', '--store', 'x'])).rejects.toThrow(
      '--store: runs show takes --profile, not --store; leave --store out',
    );
  });

  it('--profile where no profile is read: exit 2 pointing at EXAMCTL_PROFILE, which such a command ignores', async () => {
    await expect(parse(['runs', 'list', '--profile', 'prod'])).rejects.toThrow(
      '--profile: runs list reads no target or profile (scripts: EXAMCTL_PROFILE); leave --profile out',
    );
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_PROFILE: 'prod' });
      expect(await runCli(['runs', 'list', '--json'], io.deps), io.stderr.text).toBe(0);
      expect(JSON.parse(io.stdout.text)).toMatchObject({ runs: [] });
    });
  });

  it('end to end: the flag is refused before anything is written', async () => {
    await withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_CONFIG_DIR: join(dir, 'cfg') };
      const profile = testDeps(dir, {}, env);
      expect(
        await runCli(
          ['config', 'set-profile', 'q', '--concurrency', '4', '--store', './exams', '--target', 'remote'],
          profile.deps,
        ),
      ).toBe(2);
      expectCoded(profile.stderr.text, 'E2007', '--target', 'config set-profile', '--base-url');
      expect(existsSync(join(dir, 'cfg', 'config.json'))).toBe(false);
      const runs = testDeps(dir, {}, env);
      expect(await runCli(['runs', 'list', '--store', './exams'], runs.deps)).toBe(2);
      expect(runs.stdout.text).toBe('');
      const template = testDeps(dir, {}, env);
      expect(await runCli(['template', 'users', '--store', 'x', '-o', 'csv'], template.deps)).toBe(2);
      expect(template.stdout.text).toBe('');
      expectCoded(template.stderr.text, 'E2007', '--store', 'template');
      expect(readdirSync(dir).filter((name) => name !== 'cfg')).toEqual([]);
    });
  });

  it('runs prune --max-errors 3 --strict: exit 2 naming the flag and the commands that take it, nothing removed', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(await runCli(['runs', 'prune', '--max-errors', '3', '--strict'], io.deps)).toBe(2);
      expectCoded(io.stderr.text, 'E2007', '--max-errors', 'runs prune', 'user sync');
      expect(existsSync(join(dir, 'runs'))).toBe(false);
    });
  });

  it('a new command must say which it takes: a declaration without takes fails the type check', () => {
    // @ts-expect-error takes is required: refusing or taking each target flag is the command's decision.
    const undecided = declareCommand({
      path: ['roster', 'push'],
      description: 'a new command',
      examples: [],
      options: [] as const,
    });
    expect(undecided.takes).toBeUndefined();
  });
});
