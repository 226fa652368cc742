import { Help, type Command, type Option } from 'commander';
import { NAMED_DEFAULTS } from '../defaults.js';
import { rewriteBlocks, type DocBlock } from '../server/api-reference.js';

/**
 * Flag tables in the docs (docs/architecture.md, "Generated blocks in docs"), from the command
 * tree so that a doc never says another thing than `--help`. Only `npm run docs:flags`
 * (scripts/docs-flags.mjs) and its test load this file.
 */

const BLOCK = /(<!-- flags: ([^>]*?) -->\n)([\s\S]*?)(<!-- \/flags -->)/g;

/** The text with every flag block rewritten from `program`, and each block's marker and whether it already said that. */
export function renderFlagBlocks(markdown: string, program: Command): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, BLOCK, (marker) => flagTable(program, marker));
}

/** The table a block's marker asks for, ending with a newline. Throws naming the marker when it names no command or an unknown flag. */
export function flagTable(program: Command, marker: string): string {
  const words = marker.split(/\s+/).filter((word) => word !== '');
  const path = words.filter((word) => !word.startsWith('-'));
  const wanted = words.filter((word) => word.startsWith('-'));
  let command = program;
  for (const name of path) {
    const sub = command.commands.find((candidate) => candidate.name() === name);
    if (sub === undefined) throw new Error(`flag table "${marker}": no command "${path.join(' ')}"`);
    command = sub;
  }
  const own = command.options.filter((option) => !option.hidden);
  const inScope: Option[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) inScope.push(...at.options);
  const options =
    wanted.length === 0
      ? own
      : wanted.map((flag) => {
          const found = inScope.find((option) => option.long === flag || option.short === flag);
          if (found === undefined) throw new Error(`flag table "${marker}": "${path.join(' ')}" takes no ${flag}`);
          return found;
        });
  const help = command.createHelp();
  // The full text (`help <command> --all`), not --help's one line.
  const rows = options.map((option) => `| \`${cell(option.flags)}\` | ${cell(Help.prototype.optionDescription.call(help, option)).replace(/</g, '\\<')} |`);
  return ['| flag | what it does |', '|---|---|', ...rows, ''].join('\n');
}

const DEFAULT_SPAN = /(<!-- (default: [a-z-]+) -->)([^<]*)(<!-- \/default -->)/g;

/**
 * The text with every span `<!-- default: remote-concurrency -->8<!-- /default -->` rewritten from
 * src/defaults.ts, so a doc says the number the code applies. Throws naming an unknown default.
 */
export function renderDefaultSpans(markdown: string): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, DEFAULT_SPAN, (marker) => {
    const name = marker.slice('default: '.length);
    const value = NAMED_DEFAULTS[name];
    if (value === undefined) throw new Error(`default "${name}": no such named default (src/defaults.ts)`);
    return String(value);
  });
}

/** A table cell on one line, its pipes escaped (GitHub reads `\|` as a pipe inside code spans too); a description's `<` too, else `<file>` would read as HTML. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}
