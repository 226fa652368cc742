import { Help, type Command, type HelpConfiguration, type Option } from 'commander';
import { briefLineOf, briefTermOf, shownWithItsPositive } from '../flags/option-table.js';
import { commandName, type CommandDeclaration } from './command-declaration.js';
import { sentenceLines } from '../terminal/sentence-wrap.js';

/**
 * commander's help, laid out (command-tree.ts): `--help` one line per flag (its brief line, a negative shown
 * with its positive); `full()` (`examctl help <command> --all`) every flag's full text.
 */
export function helpLayout(full: () => boolean): HelpConfiguration {
  return {
    boxWrap(this: Help, text: string, width: number): string {
      return Help.prototype.boxWrap.call(this, sentenceLines(text), width);
    },
    commandDescription(this: Help, command: Command): string {
      return full() ? command.description() : command.summary() || command.description();
    },
    visibleOptions(this: Help, command: Command): Option[] {
      const visible = Help.prototype.visibleOptions.call(this, command);
      if (full()) return visible;
      // A command's brief help leaves out its own -h, --help (whoever reads it typed it; `--all` lists it).
      const own = (option: Option) => command.parent !== null && option.long === '--help';
      return visible.filter((option) => !shownWithItsPositive(option) && !own(option));
    },
    optionTerm(this: Help, option: Option): string {
      const term = Help.prototype.optionTerm.call(this, option);
      return full() ? term : briefTermOf(option, term);
    },
    optionDescription(this: Help, option: Option): string {
      return (full() ? undefined : briefLineOf(option)) ?? Help.prototype.optionDescription.call(this, option);
    },
    formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
      // One line per flag: a summary is never wrapped (a long one is cut when declared, option-table.ts).
      if (full() || description === '' || !term.startsWith('-'))
        return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
      return `  ${term.padEnd(termWidth)}  ${description}`;
    },
  };
}

/** The examples `--help` shows: up to the second examctl command, with comments (`--all` shows every one). */
export function firstExamples(lines: readonly string[]): readonly string[] {
  let commands = 0;
  const end = lines.findIndex((line) => /^(\S+=\S+ )?examctl\b/.test(line) && ++commands === 2);
  return end === -1 ? lines : lines.slice(0, end + 1);
}

/** A description's first sentence: the command's line in `--help` (the rest is in `help <command> --all`). */
export function firstSentence(description: string): string {
  const end = description.search(/\. [A-Z]/);
  return end === -1 ? description : description.slice(0, end + 1);
}

/** Where the rest of a command's help is, when `--help` left some out. */
export function allPointer(command: Command): string {
  return `Each flag in full and every example: examctl help ${pathOf(command)} --all`;
}

/** `user sync`: a commander command's path below the program. */
export function pathOf(command: Command): string {
  const path: string[] = [];
  for (let at = command; at.parent !== null; at = at.parent) path.unshift(at.name());
  return path.join(' ');
}

/** The line every subcommand's help ends with: the global flags it takes among the common ones. */
export function globalPointer(command: Command, commands: readonly CommandDeclaration[]): string {
  const declaration = commands.find((each) => commandName(each) === pathOf(command));
  const some =
    declaration === undefined
      ? []
      : (['--dry-run', '--report', '--store'] as const).filter((flag) => declaration.takes.includes(flag));
  return `Global flags (${['--json', ...some, '--yes'].join(', ')}...): examctl options`;
}

/** `examctl options`: the program's own flags, formatted by commander's help as a command's flags are. */
export function globalOptionsHelp(program: Command): string {
  const help = program.createHelp();
  const visible = help.visibleOptions(program);
  const width = Math.max(...visible.map((option) => help.optionTerm(option).length));
  const lines = visible.map((option) =>
    help.formatItem(help.optionTerm(option), width, help.optionDescription(option), help),
  );
  return `Global flags, before or after the command (--report, --dry-run and the target's where it uses them):\n${lines.join('\n')}\n\nEnvironment variables: examctl help environment\n`;
}
