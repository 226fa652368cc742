import { Help, type Command, type Option } from 'commander';
import { NAMED_DEFAULTS } from '../src/defaults.js';
import { z } from 'zod';
import {
  codeCondition,
  ITEM_CODES,
  OWN_CODES,
  recordCodeEntry,
  SPEC_CODES,
  WARNING_CODES,
} from '../src/domain/codes.js';
import { COLLECTION_TABLE, ID_TITLE_ENTRY_TABLE } from '../src/domain/collection.js';
import type { RuleTable } from '../src/domain/field-rules.js';
import { invigilatorIdsWire } from '../src/domain/invigilators.js';
import { CANDIDATE_TABLE, SCHEDULE_REQUEST_TABLE, SCHEDULE_TABLE } from '../src/domain/schedule.js';
import { inputJsonSchema, wireSchema } from '../src/domain/schemas.js';
import { HIERARCHY_TABLE, USER_TABLE } from '../src/domain/user.js';
import { ERROR_CODES, errorCodeEntry } from '../src/system/error-codes.js';
import { commandName, type CommandDeclaration } from '../src/cli/command-declaration.js';
import { COMMANDS } from '../src/cli/program.js';
import { EVERY_COMMAND_FLAGS, takenGlobalFlags, takesTargetLocal } from '../src/flags/taken-flags.js';

/**
 * The generated blocks of the docs (docs/architecture.md, "Generated blocks in docs"): flag tables
 * from the command tree, so that a doc never says another thing than `--help`; docs/api-reference.md's
 * `<!-- api: ... -->` tables, each field's type, limits and codes from its rule's wire schema and
 * description, the ones the OpenAPI document is made of. Only `npm run docs:flags`
 * (scripts/docs-flags.mjs) and the tests in test/docs/ load this file: no command does.
 */

export const TABLES: Readonly<Record<string, RuleTable>> = {
  'schedule-request': SCHEDULE_REQUEST_TABLE,
  schedule: SCHEDULE_TABLE,
  candidate: CANDIDATE_TABLE,
  user: USER_TABLE,
  hierarchy: HIERARCHY_TABLE,
  collection: COLLECTION_TABLE,
  'id-title': ID_TITLE_ENTRY_TABLE,
};

const API_BLOCK = /(<!-- api: ([^>]*?) -->\n)([\s\S]*?)(<!-- \/api -->)/g;

/** A generated block of a doc: its marker (`fields user`), and whether it said that already. */
export interface DocBlock {
  readonly marker: string;
  readonly upToDate: boolean;
}

/** `markdown` with each `pattern` block (open, marker, content, close) rewritten by `render(marker)`. */
export function rewriteBlocks(
  markdown: string,
  pattern: RegExp,
  render: (marker: string) => string,
): { text: string; blocks: DocBlock[] } {
  const blocks: DocBlock[] = [];
  const text = markdown.replace(pattern, (_whole, open: string, marker: string, content: string, close: string) => {
    const rendered = render(marker.trim());
    blocks.push({ marker: marker.trim(), upToDate: content === rendered });
    return `${open}${rendered}${close}`;
  });
  return { text, blocks };
}

/** The text with every api block rewritten from the rule tables, and whether each already said that. */
export function renderApiBlocks(markdown: string): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, API_BLOCK, apiTable);
}

/** The table a marker asks for (`fields user`, `fields invigilators`, `codes`), ending with a newline. */
export function apiTable(marker: string): string {
  const [kind, name] = marker.split(/\s+/);
  if (kind === 'codes' && name === undefined) return codesTable();
  if (kind === 'fields' && name === 'invigilators') {
    return rows(['field', 'type', 'rules'], [['(body)*', 'list of string', describe(invigilatorIdsWire(z))]]);
  }
  const table = kind === 'fields' && name !== undefined ? TABLES[name] : undefined;
  if (table === undefined)
    throw new Error(
      `api table "${marker}": expected "codes" or "fields <${[...Object.keys(TABLES), 'invigilators'].join('|')}>"`,
    );
  return rows(
    ['field', 'type', 'rules'],
    table.rules.map((rule) => [
      `${rule.name}${rule.required === true ? '*' : ''}`,
      typeOf(wireSchema(rule)),
      describe(wireSchema(rule)),
    ]),
  );
}

type JsonSchema = {
  type?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: unknown[];
  items?: JsonSchema;
  description?: string;
};

/** `string(64)`, `integer 0..999`, `UPSERT \| DELETE`, `list of string (at most 20)`, as the API text writes types. */
function typeOf(schema: z.ZodType): string {
  return typeWords(inputJsonSchema(schema) as JsonSchema);
}

function typeWords(json: JsonSchema): string {
  if (json.enum !== undefined) return json.enum.join(' \\| ');
  if (json.type === 'string') return json.maxLength === undefined ? 'string' : `string(${json.maxLength})`;
  if (json.type === 'integer') return `integer ${json.minimum ?? ''}..${json.maximum ?? ''}`;
  if (json.type === 'array')
    return `list of ${json.items === undefined ? 'any' : typeWords(json.items)}${json.maxItems === undefined ? '' : ` (at most ${json.maxItems})`}`;
  return json.type ?? 'any';
}

function describe(schema: z.ZodType): string {
  return schema.description ?? '';
}

/**
 * Every numbered code: the API's, then examctl's own, with the fields whose rule gives it (a code no field gives is
 * decided on the platform's state). A field's rule is the local engine's answer too: a code of examctl's own that a
 * field gives says that field, not "no endpoint".
 */
export function codesTable(tables: Readonly<Record<string, RuleTable>> = TABLES): string {
  const fieldsByCode = new Map<number, string[]>();
  for (const [name, table] of Object.entries(tables)) {
    for (const rule of table.rules) {
      for (const match of describe(wireSchema(rule)).matchAll(/\bcodes? (\d+)/g)) {
        const code = Number(match[1]);
        const list = fieldsByCode.get(code) ?? [];
        const field = `${name === 'schedule-request' ? '' : `${name}.`}${rule.name}`;
        if (!list.includes(field)) list.push(field);
        fieldsByCode.set(code, list);
      }
    }
  }
  for (const match of describe(invigilatorIdsWire(z)).matchAll(/\bcode (\d+)/g))
    fieldsByCode.set(Number(match[1]), ['invigilators (body)']);
  const entries = [
    ...Object.entries(SPEC_CODES).map(([name, code]) => [name, code, 'API'] as const),
    ...Object.entries(OWN_CODES).map(([name, code]) => [name, code as number, 'examctl'] as const),
  ];
  const warnings: ReadonlySet<number> = new Set(Object.values(WARNING_CODES));
  const items: ReadonlySet<number> = new Set(Object.values(ITEM_CODES));
  return rows(
    ['code', 'condition', 'from', 'given'],
    entries
      .sort((a, b) => a[1] - b[1])
      .map(([name, code, from]) => [
        String(code),
        codeCondition(name),
        from,
        warnings.has(code)
          ? 'locally, a warning: sent all the same, failed only with --strict (docs/input-formats.md, "Warnings")'
          : fieldsByCode.has(code)
            ? `locally: ${fieldsByCode.get(code)!.join(', ')}`
            : items.has(code)
              ? `by examctl itself, no endpoint (docs/errors.md, "A record's own codes")`
              : 'by the platform, on its state (the local engine: docs/engine-rules.md)',
      ]),
  );
}

function rows(header: readonly string[], body: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string =>
    `| ${cells
      .map((cell) =>
        cell
          .replace(/\s*\n\s*/g, ' ')
          .replace(/(?<!\\)\|/g, '\\|')
          .replace(/</g, '\\<'),
      )
      .join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...body.map(line), ''].join('\n');
}

const FLAG_BLOCK = /(<!-- flags: ([^>]*?) -->\n)([\s\S]*?)(<!-- \/flags -->)/g;

/** The text with every flag block rewritten from `program`, and each block's marker and whether it already said that. */
export function renderFlagBlocks(markdown: string, program: Command): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, FLAG_BLOCK, (marker) => flagTable(program, marker));
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
  const rows = options.map(
    (option) =>
      `| \`${cell(option.flags)}\` | ${cell(Help.prototype.optionDescription.call(help, option)).replace(/</g, '\\<')} |`,
  );
  return ['| flag | what it does |', '|---|---|', ...rows, ''].join('\n');
}

const TAKES_BLOCK = /(<!-- takes: ([^>]*?) -->\n)([\s\S]*?)(<!-- \/takes -->)/g;

/** The text with every `<!-- takes: global flags -->` block rewritten from the declarations' `takes` (`commands`). */
export function renderTakesBlocks(
  markdown: string,
  commands: readonly CommandDeclaration[] = COMMANDS,
): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, TAKES_BLOCK, (marker) => takesTable(marker, commands));
}

/**
 * Which global flags each runnable command takes: the commands that take the same flags on one row, in the
 * registry's order, then the flags every command takes.
 */
export function takesTable(marker: string, commands: readonly CommandDeclaration[]): string {
  if (marker !== 'global flags') throw new Error(`takes table "${marker}": expected "global flags"`);
  const rowsByFlags = new Map<string, string[]>();
  for (const declaration of commands.filter((each) => each.options !== undefined)) {
    const taken = takenGlobalFlags(declaration.takes).map((flag) => `\`${flag}\``);
    if (takesTargetLocal(declaration.takes)) taken.push('`--target local` (not `remote`)');
    const flags = taken.length === 0 ? 'none of them' : taken.join(', ');
    rowsByFlags.set(flags, [...(rowsByFlags.get(flags) ?? []), `\`${commandName(declaration)}\``]);
  }
  return rows(
    ['command', 'the global flags it takes (any other is refused, E2007)'],
    [
      ...[...rowsByFlags].map(([flags, names]) => [names.join(', '), flags]),
      ['every command', EVERY_COMMAND_FLAGS.map((flag) => `\`${flag}\``).join(', ')],
    ],
  );
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

const ERRORS_BLOCK = /(<!-- errors: ([^>]*?) -->\n)([\s\S]*?)(<!-- \/errors -->)/g;

/** docs/errors.md's `<!-- errors: codes -->` block rewritten from src/system/error-codes.ts. */
export function renderErrorBlocks(markdown: string): { text: string; blocks: DocBlock[] } {
  return rewriteBlocks(markdown, ERRORS_BLOCK, errorsSection);
}

/** Each code of the table as a heading (its anchor is the code), its cause and its fix, in the table's order. */
export function errorsSection(marker: string): string {
  if (marker === 'items') return itemsSection();
  if (marker !== 'codes') throw new Error(`unknown errors block "${marker}"`);
  return `${Object.keys(ERROR_CODES)
    .map((id) => {
      const { code, exit, title, cause, fix } = errorCodeEntry(id)!;
      return `\n### ${code}\n\n**${title}** (exit ${exit})\n\nCause: ${cause}\n\nFix: ${fix}\n`;
    })
    .join('')}\n`;
}

/** examctl's own codes of a record's problems (domain/codes.ts, ITEM_CODES), as `examctl explain 9019` prints them. */
function itemsSection(): string {
  return `${Object.values(ITEM_CODES)
    .map((number) => {
      const { code, exit, title, cause, fix } = recordCodeEntry(String(number))!;
      const ends = exit === null ? "the run's error's exit" : `exit ${exit}`;
      return `\n### ${code}\n\n**${title}** (${ends})\n\nCause: ${cause}\n\nFix: ${fix}\n`;
    })
    .join('')}\n`;
}
