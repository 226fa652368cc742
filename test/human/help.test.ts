import { describe, it, expect } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/command-tree.js';
import { commandName } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run-cli.js';
import { grouped, HELP_GROUPS_ABOVE, option, registerSpecs } from '../../src/flags/option-table.js';
import { Command as Commander } from 'commander';
import { testDeps } from '../cli/helpers.js';

/**
 * Help that teaches: every command in the tree, including ones added later, has a
 * purpose, an explanation for every flag and at least two examples. The tree is walked, so a
 * new command is covered without touching this test.
 */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...commandPaths(sub, path)];
  });
}

const program = buildProgram(testDeps('/').deps, () => undefined, COMMANDS);
const paths = [[], ...commandPaths(program)];

function commandAt(path: readonly string[]): Command {
  let command: Command = program;
  for (const name of path) command = command.commands.find((sub) => sub.name() === name)!;
  return command;
}

async function helpOf(path: readonly string[]): Promise<{ code: number; stdout: string }> {
  const io = testDeps('/');
  const code = await runCli([...path, '--help'], io.deps);
  return { code, stdout: io.stdout.text };
}

describe('--help', () => {
  it('covers the whole tree: the walk finds every declared command (program.ts), and nothing else', () => {
    const names = paths.slice(1).map((path) => path.join(' '));
    // With the two command-tree.ts makes itself: `examctl help <command>` and `examctl options`.
    expect(names.sort()).toEqual([...COMMANDS.map(commandName), 'help', 'options'].sort());
  });

  it.each(paths.map((path) => [path.join(' ') || '(examctl)', path] as const))(
    '%s: a purpose, every flag explained, at least two examples',
    async (_name, path) => {
      const command = commandAt(path);
      expect(command.description().trim().length).toBeGreaterThan(10);
      for (const option of command.options)
        expect(option.description.trim(), `${option.flags} has no explanation`).not.toBe('');

      const help = await helpOf(path);
      expect(help.code).toBe(0);
      const afterExamples = help.stdout.split('\nExamples:\n')[1];
      expect(afterExamples, `no "Examples:" in the help of "${path.join(' ')}"`).toBeDefined();
      const exampleLines = afterExamples!
        .split('\n')
        .filter((line) => /^\s+\$ examctl\b/.test(line) || /^\s+\$ \S+=\S+ examctl\b/.test(line));
      expect(exampleLines.length).toBeGreaterThanOrEqual(2);
      // Each example names this command (or, for a group, one of its subcommands).
      if (path.length > 0) expect(exampleLines.some((line) => line.includes(path.join(' ')))).toBe(true);
    },
  );

  /** The headings of a help text's flag sections, in order, with the flags under each. */
  function flagSections(help: string): [string, string[]][] {
    const before = help.split('\nExamples:\n')[0]!;
    return [...before.matchAll(/^([A-Z][A-Za-z ()]*):\n((?: {2}.*\n?)+)/gm)]
      .filter(([, heading]) => heading !== 'Usage' && heading !== 'Arguments' && heading !== 'Commands')
      .map(([, heading, body]) => [
        heading!,
        [...body!.matchAll(/^ {2}(-[^\s,]+(?:, --\S+)?)/gm)].map((flag) => flag[1]!),
      ]);
  }

  it('schedule push shows its flags under headings: input, request, schedule fields, nightly sync', async () => {
    const sections = flagSections((await helpOf(['schedule', 'push'])).stdout);
    expect(sections.map(([heading]) => heading)).toEqual(['Input', 'Request', 'Schedule fields', 'Nightly sync']);
    const flagsUnder = new Map(sections);
    expect(flagsUnder.get('Input')).toEqual(
      expect.arrayContaining(['-f, --file', '--schedule', '--only-failed', '--sheet', '--encoding']),
    );
    expect(flagsUnder.get('Schedule fields')).toEqual(
      expect.arrayContaining(['--schedule-id', '--start', '--pin', '--[no-]keycode']),
    );
    // The plan a dry run writes for examctl apply (the nightly recipe for teams that review) comes last.
    expect(flagsUnder.get('Nightly sync')).toEqual([
      '--changed-only',
      '--allow-old-file',
      '--clear-pin',
      '--require-memory',
      '--only-new',
      '--only-existing',
      '--sync-dir',
      '--plan-out',
    ]);
  });

  it.each(paths.map((path) => [path.join(' ') || '(examctl)', path] as const))(
    '%s: with more than ten flags, every flag under a heading of its group',
    async (_name, path) => {
      const command = commandAt(path);
      const own = command.options.filter((flag) => !flag.hidden && flag.long !== '--version');
      const sections = flagSections((await helpOf(path)).stdout);
      if (own.length <= HELP_GROUPS_ABOVE) {
        expect(sections.map(([heading]) => heading).filter((heading) => heading !== 'Options')).toEqual([]);
        return;
      }
      const listed = sections.filter(([heading]) => heading !== 'Options').flatMap(([, flags]) => flags);
      // A --flag and its --no-flag share one line (`--[no-]flag`); a command's brief help leaves out its -h.
      const pairs = own.filter(
        (flag) => flag.negate && own.some((other) => !other.negate && other.attributeName() === flag.attributeName()),
      ).length;
      expect(listed).toHaveLength(own.length - pairs);
    },
  );

  it('a flag added to a table without a group lands in the group of the flag before it; before any group, under Options', () => {
    const table = [
      option('--first', 'before any group'),
      ...grouped('Input', [option('--file <path>', 'a file')] as const),
      option('--added-later', 'added by someone else, naming no group'),
      ...grouped('Nightly sync', [option('--changed-only', 'only changes')] as const),
      ...Array.from({ length: 8 }, (_, i) => option(`--more-${i}`, 'filler')),
    ];
    const command = registerSpecs(new Commander('x'), table);
    const groupOf = (flag: string): string | undefined =>
      command.options.find((each) => each.long === flag)?.helpGroupHeading;
    expect([
      groupOf('--first'),
      groupOf('--file'),
      groupOf('--added-later'),
      groupOf('--changed-only'),
      groupOf('--more-7'),
    ]).toEqual(['Options:', 'Input:', 'Input:', 'Nightly sync:', 'Nightly sync:']);
    // Ten flags or fewer: one list, no headings.
    const small = registerSpecs(new Commander('y'), table.slice(0, HELP_GROUPS_ABOVE));
    expect(small.options.map((each) => each.helpGroupHeading)).toEqual(Array(HELP_GROUPS_ABOVE).fill(undefined));
  });

  it('a subcommand lists its own flags and points at `examctl options` for the global ones (--dry-run, --report, --yes)', async () => {
    const help = await helpOf(['user', 'sync']);
    expect(help.stdout).toContain('--only-failed');
    expect(help.stdout).toContain('Global flags (--json, --dry-run, --report, --store, --yes...): examctl options');
    expect(help.stdout).not.toContain('--max-errors <n>');
    // The pointer names only the common global flags a command takes (docs/cli.md, "Global flags").
    expect((await helpOf(['config', 'set-profile'])).stdout).toContain(
      'Global flags (--json, --yes...): examctl options',
    );
    const io = testDeps('/');
    expect(await runCli(['options'], io.deps)).toBe(0);
    for (const flag of [
      '--dry-run',
      '--report <file>',
      '--yes',
      '--no-input',
      '--max-errors <n>',
      '-o, --output <format>',
    ])
      expect(io.stdout.text).toContain(flag);
  });

  it('synced unlock: an example without --sync-dir says where the state service is named then (EXAMCTL_SYNC_DIR)', async () => {
    // Without a state service, unlock refuses (E2000): a sync directory's lock needs no release.
    const examples = (await helpOf(['synced', 'unlock'])).stdout.split('\nExamples:\n')[1]!;
    const bare = examples.split('\n').findIndex((line) => /\$ examctl synced unlock \S+$/.test(line));
    expect(bare).toBeGreaterThan(0);
    expect(examples.split('\n')[bare - 1]).toContain('EXAMCTL_SYNC_DIR');
  });

  it('`examctl help user sync` shows the help of user sync; `help environment` the environment variables', async () => {
    const io = testDeps('/');
    expect(await runCli(['help', 'user', 'sync'], io.deps)).toBe(0);
    expect(io.stdout.text).toContain('Usage: examctl user sync');
    const env = testDeps('/');
    expect(await runCli(['help', 'environment'], env.deps)).toBe(0);
    expect(env.stdout.text).toContain('EXAMCTL_TOKEN');
    const unknown = testDeps('/');
    expect(await runCli(['help', 'user', 'nope'], unknown.deps)).toBe(2);
    expect(unknown.stderr.text).toContain('unknown command');
  });

  it('a command that writes text only refuses --json and -o (exit 2, the error as the one JSON document), never prints text where a script expects JSON', async () => {
    for (const argv of [
      ['options', '--json'],
      ['help', 'environment', '-o', 'json'],
      ['help', 'user', 'sync', '--json'],
      ['completion', 'bash', '-o', 'csv'],
      ['--json', 'completion', 'zsh'],
      ['user', 'sync', '--help', '--json'],
      ['user', 'sync', '-h', '-o', 'json'],
      ['-V', '--json'],
    ]) {
      const io = testDeps('/');
      expect(await runCli(argv, io.deps), argv.join(' ')).toBe(2);
      expectCoded(io.stderr.text, 'E2003');
      if (argv.includes('--json'))
        expect(JSON.parse(io.stdout.text)).toMatchObject({ error: { exitCode: 2, kind: 'usage', code: 'E2003' } });
    }
  });

  it('help text starts each sentence on a new line', async () => {
    const io = testDeps('/');
    expect(await runCli(['help', 'schedule', 'push', '--all'], io.deps)).toBe(0);
    expect(io.stdout.text).toMatch(/one POST \/schedule per\s+schedule\)\.\n\s*A candidates CSV/);
  });
});
