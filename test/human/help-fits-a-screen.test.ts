import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/command-tree.js';
import { runCli } from '../../src/cli/run-cli.js';
import { COMMANDS } from '../../src/cli/program.js';
import { briefLine, type OptionSpec } from '../../src/flags/option-table.js';
import { testDeps } from '../cli/helpers.js';

/**
 * `--help` fits a screen: at most 60 lines, one line per flag (under its group's heading), each
 * naming its default; the full text of every flag and every example is `examctl help <command>
 * --all`. Walks the declarations, so a command or flag added later is held to the same.
 */
const SCREEN_LINES = 60;
/** A flag's line, term and summary: what a wide terminal shows without wrapping. */
const FLAG_LINE_WIDTH = 100;

async function output(argv: string[]): Promise<string> {
  const io = testDeps('/');
  expect(await runCli(argv, io.deps)).toBe(0);
  return io.stdout.text;
}

const program = buildProgram(testDeps('/').deps, () => undefined, COMMANDS);
function commandAt(path: readonly string[]): Command {
  let command: Command = program;
  for (const name of path) command = command.commands.find((sub) => sub.name() === name)!;
  return command;
}

const declared = COMMANDS.filter((declaration) => declaration.options !== undefined).map(
  (declaration) => [declaration.path.join(' '), declaration] as const,
);

describe('--help fits a screen', () => {
  it.each(declared)('%s: at most 60 lines, one line per flag, each within 100 columns', async (name, declaration) => {
    const help = await output([...declaration.path, '--help']);
    const lines = help.trimEnd().split('\n');
    expect(lines.length, help).toBeLessThanOrEqual(SCREEN_LINES);
    const command = commandAt(declaration.path);
    const flagPart = help.split('\nExamples:\n')[0]!;
    // The blocks of flags: each a heading and its lines (not Usage, the description or Arguments).
    const afterArguments = flagPart
      .split('\n\n')
      .filter((block) => /^[A-Z][A-Za-z ()]*:\n/.test(block) && !/^(Usage|Arguments):/.test(block))
      .flatMap((block) => block.split('\n').slice(1));
    // Each flag on exactly one line (a negation on its positive flag's: `--[no-]keycode`).
    const helper = command.createHelp();
    const visible = helper.visibleOptions(command);
    // Its own -h, --help is left out of the brief help (the reader typed it), kept in `--all`.
    expect(help).not.toMatch(/^ {2}-h, --help /m);
    expect(await output(['help', ...declaration.path, '--all'])).toMatch(/^ {2}-h, --help /m);
    for (const option of visible) {
      const term = helper.optionTerm(option);
      const onLine = afterArguments.filter((line) => line.startsWith(`  ${term} `));
      expect(onLine, `${name} ${term}`).toHaveLength(1);
    }
    for (const option of command.options.filter((each) => !visible.includes(each))) {
      expect(option.negate, `${name} ${option.flags} is not shown`).toBe(true);
      expect(visible.some((each) => each.attributeName() === option.attributeName())).toBe(true);
    }
    // Under the headings, every line is a flag's own: none wraps onto a second line.
    const flagLines = afterArguments.filter((line) => line.startsWith('  '));
    for (const line of flagLines) {
      expect(line, `${name}: a wrapped flag line`).toMatch(/^ {2}-/);
      expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(FLAG_LINE_WIDTH);
    }
    expect(help).toContain(`examctl help ${name} --all`);
  });

  // Every subcommand of the tree, the groups and the tree's own `options` and `help` too (`examctl --help`, the
  // overview of all, is no subcommand's).
  it.each(
    program.commands
      .flatMap((command) => [command, ...command.commands])
      .map((command) => [command.parent === program ? command.name() : `${command.parent!.name()} ${command.name()}`]),
  )('%s --help: at most 60 lines', async (name) => {
    const help = await output([...name.split(' '), '--help']);
    expect(help.trimEnd().split('\n').length, help).toBeLessThanOrEqual(SCREEN_LINES);
  });

  it.each(declared)('%s: each flag with a default names it on its line', async (_name, declaration) => {
    const help = await output([...declaration.path, '--help']);
    for (const spec of declaration.options ?? []) {
      if (spec.kind !== 'option') continue;
      const option = spec as OptionSpec;
      const hasDefault =
        option.shownDefault !== undefined ||
        (option.defaultValue !== undefined && typeof option.defaultValue !== 'boolean');
      const line = briefLine(option);
      // A negation's line is its positive flag's (`--[no-]keycode`).
      if (!(option.flags.startsWith('--no-') && help.includes(`--[no-]${option.flags.slice(5)}`)))
        expect(help, option.flags).toContain(line);
      if (hasDefault) expect(line, option.flags).toMatch(/\(default: [^)]+\)$/);
    }
  });

  it('`examctl help <command> --all` has the full text of every flag and every example', async () => {
    for (const [name, declaration] of declared) {
      const all = await output(['help', ...declaration.path, '--all']);
      const flat = all.replace(/\s+/g, ' ');
      for (const spec of declaration.options ?? []) {
        if (spec.kind === 'option')
          expect(flat, `${name} ${spec.flags}`).toContain(spec.description.replace(/\s+/g, ' ').slice(0, 40));
      }
      for (const example of declaration.examples) expect(all, name).toContain(example.split('\n')[0]!);
      expect(flat).toContain(declaration.description.replace(/\s+/g, ' ').slice(0, 60));
    }
  });

  it('schedule push, the longest: flags under their headings, a pair as one --[no-]flag line', async () => {
    const help = await output(['schedule', 'push', '--help']);
    expect(help).toMatch(/^ {2}--\[no-\]keycode +UseKeyCode: log in with keycode slips \(default: the service's\)$/m);
    expect(help).not.toMatch(/^ {2}--no-keycode/m);
    expect(help).toMatch(/^ {2}--end <datetime> +EndDateTime \(default: start \+ duration \+ 60 min\)$/m);
    expect(help).toMatch(/^ {2}-f, --file <path> +.* \(required\)$/m);
    for (const heading of ['Input:', 'Request:', 'Schedule fields:', 'Nightly sync:'])
      expect(help).toContain(`\n${heading}\n`);
  });
});
