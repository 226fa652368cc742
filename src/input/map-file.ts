/**
 * A map file (`--map-file`, a profile's `mapFile`): docs/input-formats.md, "Map files". Declarative only;
 * read with a size limit and checked with zod, every refusal naming the file, the line and the key.
 */
import { HIERARCHY_CELL_FLAGS } from '../domain/coercion.js';
import { isPlainObject } from '../domain/field-rules.js';
import { InputFileError, UsageError } from '../system/errors.js';
import { readRegularFileWithStat, SETTINGS_FILE_MAX_BYTES, type RegularReadOptions } from '../system/regular-file.js';
import { valueWordKey } from '../formats/column-name.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { cannotRead, decodeTextDocument } from './text-source.js';
import { jsonFaultError } from './json-document.js';
import { keyLines, MAX_JSON_DEPTH, parseJson, scanJsonYielding, type DuplicateKey } from '../system/json-scan.js';
import { quotedValue } from '../domain/problem.js';
import { listWithCount } from './name-hints.js';

/** A key starting with this is a note for the reader of the file, ignored at any level. */
const NOTE_KEY_PREFIX = '//';

/** The permission flags a Hierarchies entry takes (`DEPT-MATH:coordinator+reports`), as `flags` names them. */
export type HierarchyFlag = keyof typeof HIERARCHY_CELL_FLAGS;
const FLAG_NAMES = Object.keys(HIERARCHY_CELL_FLAGS) as HierarchyFlag[];

/** The export's words and the platform's, as the map file writes them. */
export interface ValueTable {
  words: Readonly<Record<string, string>>;
  default?: string | undefined;
}

/** One piece of a template: text as written, or a column's value. */
export type TemplatePart = { text: string } | { column: string };

/** Where a field's value comes from: one column, or a template of several. */
type ValueSource = { column: string } | { template: readonly TemplatePart[] };

/** Where an entry is written: for messages, `file:line "key"`; `file`, its path (a refusal's, mapFileRefusal). */
interface EntryPlace {
  file: string;
  origin: string;
  line: number;
  key: string;
}

/** A column read as a field (the key is the column), maybe through a value table. */
interface ColumnEntry extends EntryPlace {
  source: string;
  field: string;
  values?: ValueTable | undefined;
}

/** A field computed from columns (the key is the field). */
export interface ComputedEntry extends EntryPlace {
  field: string;
  /** Tried in order: the first that gives a value (a template gives one when every column it names has one). */
  sources: readonly ValueSource[];
  values?: ValueTable | undefined;
  /** Hierarchies only: a yes in the column adds the flag to the membership. */
  flags?: readonly { column: string; flag: HierarchyFlag }[] | undefined;
}

type MapFileEntries = Awaited<ReturnType<typeof parseMapFile>>;

/** `file:line` for a message about the key at `path` (the file's own line numbers). */
function placeOf(origin: string, lines: KeyLines, path: readonly string[]): string {
  const line = lines.get(path.join('\u0000'));
  return line === undefined ? origin : `${origin}:${line}`;
}

/** A key path as a message names it: `"Hierarchies" > "flags" > "Exams Officer"`. */
function keyPath(path: readonly string[]): string {
  return path.map((part) => quotedValue(part, 'a key')).join(' > ');
}

type KeyLines = Map<string, number>;

/** Limits of a map file's JSON beyond its size: values (value tables' words too), columns and computed fields. */
export const MAP_FILE_MAX_ENTRIES = 100_000;
export const MAP_FILE_MAX_COLUMNS = 5_000;
/** Columns one template names: a value built of more is no field's (and 4 MiB of `{A}` would outgrow any string). */
export const MAP_TEMPLATE_MAX_COLUMNS = 100;

/** The value without its notes (`//` keys), at every level. */
function withoutNotes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNotes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith(NOTE_KEY_PREFIX))
      .map(([key, inner]) => [key, withoutNotes(inner)]),
  );
}

/** Whether a profile's map file names a column or field the run's own `--map-file` (which wins) does not. */
export function mapFileShapes(profile: MapFileEntries, own?: MapFileEntries): boolean {
  if (own === undefined) return true;
  const keys = ({ field, source }: { field: string; source?: string }) =>
    [`=${field}`, source ?? '='].map(normalizeColumnName);
  const said = new Set(Object.values(own).flat().flatMap(keys));
  return Object.values(profile)
    .flat()
    .some((entry) => !keys(entry).some((key) => key !== '=' && said.has(key)));
}

/**
 * A map file refused for what it holds: E2100, as for its JSON syntax (jsonFaultError), whatever names it (a flag, a
 * profile): it is an input file the user wrote (docs/errors.md, E2100), not a flag's value (E2000).
 */
export function mapFileRefusal(file: string, line: number | undefined, message: string): InputFileError {
  const error = new InputFileError(file, line, message);
  // The message names the file as the flag or profile does, and the line and key: said as written.
  error.message = message;
  return error;
}

/**
 * Reads and checks a map file; each problem is mapFileRefusal's, naming `origin` (flag or profile key), line and
 * key.
 */
export async function readMapFile(
  path: string,
  origin: string,
  check?: RegularReadOptions['check'],
  same?: { sha256?: string },
  /** Where a config file names it (`config.json:8`): a file that cannot be read is a value refused there. */
  at?: string,
): Promise<MapFileEntries> {
  let text: string;
  try {
    // A map of a few thousand words is kilobytes. `check`: a profile's map file is judged as its config file is.
    text = decodeTextDocument(
      (await readRegularFileWithStat(path, { followLinks: true, maxBytes: SETTINGS_FILE_MAX_BYTES, check, same }))
        .bytes,
      origin,
    );
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Missing E2101, else (a FIFO, a directory, too large, denied) E2102: as --file's (text-source.ts).
    throw cannotRead(path, error, at === undefined ? origin : `${at}: ${origin}`);
  }
  return parseMapFile(text, origin, path);
}

/** A map file's text (its byte order mark dropped by decodeTextDocument), checked (see readMapFile). */
async function parseMapFile(source: string, origin: string, file: string) {
  const limits = { depth: MAX_JSON_DEPTH, entries: MAP_FILE_MAX_ENTRIES };
  let parsed: unknown;
  let lines: KeyLines;
  let duplicate: DuplicateKey | undefined;
  await scanJsonYielding(source, limits);
  try {
    parsed = parseJson(source, limits);
    ({ lines, duplicate } = keyLines(source, limits, (key) => key.startsWith(NOTE_KEY_PREFIX)));
  } catch (error) {
    throw jsonFaultError(error, origin);
  }
  if (!isPlainObject(parsed)) {
    throw mapFileRefusal(
      file,
      undefined,
      `${origin}: expected one JSON object, {"Column in the file": "ApiField", ...} (examctl template users --map-example shows every kind of entry)`,
    );
  }
  const count = Object.keys(parsed).length;
  if (count > MAP_FILE_MAX_COLUMNS) {
    throw mapFileRefusal(
      file,
      undefined,
      `${origin}: ${count.toLocaleString('en-US')} entries, more than the ${MAP_FILE_MAX_COLUMNS.toLocaleString('en-US')} columns and computed fields a map file may hold: not a map file? Not used`,
    );
  }
  if (duplicate !== undefined) {
    const path = duplicate.path.map(String);
    const what = path.length === 1 ? `${quotedValue(path[0]!)} is mapped twice` : `${keyPath(path)} is given twice`;
    throw mapFileRefusal(
      file,
      duplicate.line,
      `${origin}:${duplicate.line}: ${what} (first on line ${duplicate.first}); JSON would keep only the last: one entry per ${duplicate.path.length === 1 ? 'column' : 'key'}`,
    );
  }
  const { entrySchemas } = await mapFileSchemas();
  const columns: ColumnEntry[] = [];
  const computed: ComputedEntry[] = [];
  for (const [key, raw] of Object.entries(withoutNotes(parsed) as Record<string, unknown>)) {
    const fail = (message: string, path: readonly string[] = []): never => {
      const at = [key, ...path];
      throw mapFileRefusal(
        file,
        lines.get(at.join('\u0000')),
        `${placeOf(origin, lines, at)}: ${keyPath(at)}: ${message}`,
      );
    };
    const place: EntryPlace = { file, origin, line: lines.get(key) ?? 1, key };
    if (key.trim() === '') fail('a column or field name is needed');
    if (typeof raw === 'string') {
      if (raw.trim() === '') fail('no field name (to leave the column out, leave out its entry)');
      columns.push({ ...place, source: key, field: raw.trim() });
      continue;
    }
    if (!isPlainObject(raw)) {
      return fail(
        'must be an API field name (a string), or an object: {"field": ..., "values": {...}} or {"column"|"template": ..., "fallback": ...}',
      );
    }
    const schema = 'field' in raw ? entrySchemas.column : entrySchemas.computed;
    const checked = schema.safeParse(raw);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      fail(issueMessage(issue), (issue?.path ?? []).map(String));
    }
    if ('field' in raw) {
      // The tables as written, not as zod copied them: its copy drops a key named __proto__.
      const entry = {
        ...(checked.data as { field: string; default?: string }),
        values: raw.values as Record<string, string> | undefined,
      };
      const values = valueTable(entry, fail);
      columns.push({ ...place, source: key, field: entry.field.trim(), values });
      continue;
    }
    const entry = {
      ...(checked.data as { column?: string; template?: string; fallback?: string | string[]; default?: string }),
      values: raw.values as Record<string, string> | undefined,
      flags: raw.flags as Record<string, string> | undefined,
    };
    const sources: ValueSource[] = [];
    if ((entry.column === undefined) === (entry.template === undefined))
      fail('give "column" or "template" (one of them): where the value comes from');
    if (entry.column !== undefined) sources.push({ column: entry.column });
    if (entry.template !== undefined)
      sources.push({ template: parseTemplate(entry.template, (message) => fail(message, ['template'])) });
    const fallback =
      entry.fallback === undefined ? [] : typeof entry.fallback === 'string' ? [entry.fallback] : entry.fallback;
    for (const column of fallback) sources.push({ column });
    const values = valueTable(entry, fail);
    let flags: { column: string; flag: HierarchyFlag }[] | undefined;
    if (entry.flags !== undefined) {
      if (normalizeColumnName(key) !== 'hierarchies')
        fail('"flags" add permissions to memberships: only a Hierarchies entry takes them', ['flags']);
      flags = Object.entries(entry.flags).map(([column, name]) => ({
        column,
        flag: flagOf(name, (message) => fail(message, ['flags', column])),
      }));
    }
    computed.push({
      ...place,
      field: key.trim(),
      sources,
      values,
      flags,
    });
  }
  return { columns, computed };
}

/** A flag as `flags` names it: the cell syntax's word (`coordinator`) or the API field (`IsCoordinator`), any case. */
function flagOf(name: string, fail: (message: string) => never): HierarchyFlag {
  const key = normalizeColumnName(name);
  for (const [flag, field] of Object.entries(HIERARCHY_CELL_FLAGS)) {
    if (normalizeColumnName(flag) === key || normalizeColumnName(field) === key) return flag as HierarchyFlag;
  }
  return fail(`not a flag: one of ${FLAG_NAMES.join(', ')}`);
}

/** The entry's value table (a "default" needs one); words the match cannot tell apart (`Maths`, `MATHS`) must agree. */
function valueTable(
  entry: { values?: Record<string, string>; default?: string },
  fail: (message: string, path?: readonly string[]) => never,
): ValueTable | undefined {
  if (entry.values === undefined) {
    if (entry.default !== undefined)
      fail('a "default" needs "values": the words it stands for when none of them matches', ['default']);
    return undefined;
  }
  const seen = new Map<string, [string, string]>();
  for (const [word, value] of Object.entries(entry.values)) {
    if (value.trim() === '')
      fail('no value: a word stands for a value of the platform (to leave a word out, leave out its entry)', [
        'values',
        word,
      ]);
    const key = valueWordKey(word);
    const earlier = seen.get(key);
    if (earlier !== undefined && earlier[1] !== value) {
      fail(
        `${quotedValue(earlier[0])} and ${quotedValue(word)} are one word to examctl (case, and whitespace around or repeated, do not matter) but stand for different values`,
        ['values', word],
      );
    }
    seen.set(key, [word, value]);
  }
  if (seen.size === 0) fail('an empty table: give the words, {"Mathematics": "DEPT-MATH", ...}', ['values']);
  return { words: entry.values, default: entry.default };
}

/** `{Given name}.{Surname}@school.example`: column names in braces (`{{`, `}}` are braces); at least one column. */
function parseTemplate(template: string, fail: (message: string) => never): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let columns = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i] as string;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      text += c;
      i++;
    } else if (c === '{') {
      const end = template.indexOf('}', i + 1);
      if (end === -1) fail(`the { at character ${i + 1} is not closed (write {{ for a brace itself)`);
      const column = template.slice(i + 1, end).trim();
      if (column === '' || column.includes('{'))
        fail(`the braces at character ${i + 1} hold no column name (write {{ for a brace itself)`);
      if (++columns > MAP_TEMPLATE_MAX_COLUMNS)
        fail(`more than ${MAP_TEMPLATE_MAX_COLUMNS} columns in one template, the most one may name`);
      if (text !== '') parts.push({ text });
      text = '';
      parts.push({ column });
      i = end;
    } else if (c === '}') {
      fail(`the } at character ${i + 1} closes nothing (write }} for a brace itself)`);
    } else {
      text += c;
    }
  }
  if (text !== '') parts.push({ text });
  if (columns === 0) fail(`it names no column ({Column name}); a value for every row is --set's`);
  return parts;
}

/** A zod issue in words: what was expected where, or the keys an entry takes. */
function issueMessage(
  issue: { code: string; message: string; keys?: readonly PropertyKey[]; expected?: unknown } | undefined,
): string {
  if (issue === undefined) return 'not a map entry';
  if (issue.code === 'unrecognized_keys') {
    return `unknown ${issue.keys?.length === 1 ? 'key' : 'keys'} ${listWithCount((issue.keys ?? []).map((key) => quotedValue(String(key))))}: an entry takes "field", "values", "default" (a column read as a field) or "column", "template", "fallback", "values", "default", "flags" (a field computed from columns)`;
  }
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input'))
    return `expected ${String(issue.expected)}`;
  return issue.message;
}

/** zod loads only for a map file: a run without one does without it. */
let schemas: Promise<{ entrySchemas: { column: import('zod').ZodType; computed: import('zod').ZodType } }> | undefined;

function mapFileSchemas(): NonNullable<typeof schemas> {
  schemas ??= import('zod').then(({ z }) => {
    const name = z.string().trim().min(1, 'a name is needed');
    const words = z.record(z.string(), z.string({ error: "expected the platform's value (a string)" }));
    return {
      entrySchemas: {
        column: z.strictObject({ field: name, values: words.optional(), default: z.string().min(1).optional() }),
        computed: z.strictObject({
          column: name.optional(),
          template: z.string().min(1).optional(),
          fallback: z
            .union([name, z.array(name).min(1)], { error: 'expected a column name, or a list of them tried in order' })
            .optional(),
          values: words.optional(),
          default: z.string().min(1).optional(),
          flags: z.record(z.string(), z.string({ error: 'expected a flag name (a string)' })).optional(),
        }),
      },
    };
  });
  return schemas;
}
