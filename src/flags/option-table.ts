import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import { normalizeColumnName } from '../domain/field-names.js';
import { UsageError } from '../system/errors.js';

/**
 * Flags and positional arguments as data: one table per command, which commander registers from
 * and which types the command's `options`, so they cannot drift (docs/architecture.md, "Add a flag").
 */

export interface OptionSpec<Flags extends string = string, Value = unknown, Always extends boolean = boolean> {
  readonly kind: 'option';
  readonly flags: Flags;
  readonly description: string;
  // Method syntax: tables of differently typed flags share one array type.
  parse?(value: string, previous: Value | undefined): Value;
  readonly choices?: readonly string[];
  readonly defaultValue?: Value;
  /** Set whenever the command runs (mandatory, or with a default): not optional in the type. */
  readonly always: Always;
  readonly mandatory?: boolean;
  /** Taken more than once, every value in order; any other flag with a value is refused when given twice. */
  readonly repeatable?: boolean;
  /** The heading `--help` lists the flag under (docs/architecture.md, "Add a flag"); set through `grouped`. */
  readonly group?: string;
  readonly kept?: JournalKeeping;
  /** A global flag every command takes, and why; any other only a command that declares it (taken-flags.ts). */
  readonly everyCommand?: string;
  /** The flag's one line in `--help` (see `brief`); the description is its full text. */
  readonly summary?: string;
  /** The default in words where no `defaultValue` says it (`the first visible sheet`). */
  readonly shownDefault?: string;
  /** Flags of its command it needs (one of each list) or refuses beside it: flag-pairs.ts. */
  readonly needs?: readonly FlagNeed[];
  readonly excludes?: readonly FlagExclusion[];
}

/** One of `anyOf` must be given with the flag; `why` is said after the refusal (flag-pairs.ts). */
export interface FlagNeed {
  readonly anyOf: readonly string[];
  readonly why?: string;
}

/** None of `flags` may be given with the flag, for `why` (flag-pairs.ts). */
interface FlagExclusion {
  readonly flags: readonly string[];
  readonly why: string;
}

interface ArgumentSpec<Key extends string = string, Syntax extends string = string, _Value = unknown> {
  readonly kind: 'argument';
  readonly key: Key;
  readonly syntax: Syntax;
  readonly description: string;
  readonly kept?: JournalKeeping;
  /** The words it takes; commander refuses any other (exit 2) before the command runs. */
  readonly choices?: readonly string[];
}

export type Spec = OptionSpec | ArgumentSpec;

/**
 * Whether a run journal keeps a flag's value for `runs resume` (docs/runs.md, "What a journal keeps"):
 * `true`, `'with-digest'` (with its file's SHA-256), or why not; test/runs/kept-options.test.ts asks.
 */
type JournalKeeping = true | 'with-digest' | { readonly notKept: string };

export function kept<const S extends Spec>(spec: S, keeping: JournalKeeping = true): S {
  return { ...spec, kept: keeping };
}

export function everyCommand<const S extends OptionSpec>(spec: S, why: string): S & { readonly everyCommand: string } {
  return { ...spec, everyCommand: why };
}

/** Every spec kept by the journal (runs resume continues with it) unless it says otherwise. */
export function allKept<const T extends readonly Spec[]>(specs: T): T {
  return specs.map((spec) => (spec.kept === undefined ? { ...spec, kept: true } : spec)) as unknown as T;
}

/** The option names (commander's attributes, argument keys) the journal keeps, and those kept with a digest. */
export function keptNames(...tables: readonly SpecTable[]): KeptOptions {
  const kept: KeptOptions = { names: [], digested: [] };
  for (const spec of tables.flat()) {
    if (spec.kept !== true && spec.kept !== 'with-digest') continue;
    const name = spec.kind === 'argument' ? spec.key : attributeOf(spec.flags);
    kept.names.push(name);
    if (spec.kept === 'with-digest') kept.digested.push(name);
  }
  return kept;
}

export interface KeptOptions {
  readonly names: string[];
  readonly digested: string[];
}

/** commander's attribute of a flag's text (`--no-keycode` is `keycode`), as AttributeOf types it. */
export function attributeOf(flags: string): string {
  return new Option(flags).attributeName();
}
export type SpecTable = readonly Spec[];

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type LongName<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
/** commander's attribute name of a flag: `--no-input` sets `input`. */
type AttributeOf<F extends string> = LongName<F> extends `no-${infer Name}` ? Camel<Name> : Camel<LongName<F>>;

/** A flag without `<value>` is a switch; `[value...]`/`<value...>` collects; otherwise one string. */
type ValueOfFlags<F extends string> = F extends `${string}...${string}`
  ? string[]
  : F extends `${string}<${string}` | `${string}[${string}`
    ? string
    : boolean;
type ValueOfArgument<S extends string> = S extends `${string}...${string}` ? string[] : string;

type KeyOf<S> = S extends OptionSpec<infer F> ? AttributeOf<F> : S extends ArgumentSpec<infer K> ? K : never;
type ValueOf<S> =
  S extends OptionSpec<string, infer V> ? V : S extends ArgumentSpec<string, string, infer V> ? V : never;
type IsAlways<S> =
  S extends OptionSpec<string, unknown, true> ? true : S extends ArgumentSpec<string, `<${string}`> ? true : false;

type Flatten<T> = { [K in keyof T]: T[K] };

/** The `options` a command receives, derived from its table. */
export type OptionsOf<T extends SpecTable> = Flatten<
  { [S in T[number] as IsAlways<S> extends true ? KeyOf<S> : never]: ValueOf<S> } & {
    [S in T[number] as IsAlways<S> extends true ? never : KeyOf<S>]?: ValueOf<S>;
  }
>;

type Given<D> = [D] extends [undefined] ? false : true;

function withDefault<S extends object>(spec: S, defaultValue: unknown): never {
  return (defaultValue === undefined ? { ...spec, always: false } : { ...spec, defaultValue, always: true }) as never;
}

/**
 * `--flag` (a switch, `--no-flag` included) or `--flag <value>` (a string, `...`: a list), with an optional default.
 */
export function option<const F extends string, D extends ValueOfFlags<F> | undefined = undefined>(
  flags: F,
  description: string,
  defaultValue?: D,
): OptionSpec<F, ValueOfFlags<F>, Given<D>> {
  return withDefault({ kind: 'option', flags, description }, defaultValue);
}

export function mandatory<const F extends string>(flags: F, description: string): OptionSpec<F, ValueOfFlags<F>, true> {
  return { kind: 'option', flags, description, always: true, mandatory: true };
}

/** A value checked and converted by `parse` (flag-values.ts), which throws commander's InvalidArgumentError. */
export function parsed<const F extends string, V, D extends V | undefined = undefined>(
  flags: F,
  description: string,
  parse: (value: string, previous: V | undefined) => V,
  defaultValue?: D,
): OptionSpec<F, V, Given<D>> {
  return withDefault({ kind: 'option', flags, description, parse }, defaultValue);
}

/** A flag given as often as wanted: every value, in order (`--map a=B --map c=D`). */
export function repeatable<const F extends string>(flags: F, description: string): OptionSpec<F, string[], false> {
  return {
    kind: 'option',
    flags,
    description,
    parse: (value, previous) => [...(previous ?? []), value],
    repeatable: true,
    always: false,
  };
}

/** `--set <Field=value>`, repeatable: one field given twice is refused, naming no value. */
export function repeatableFields(description: string): OptionSpec<'--set <Field=value>', string[], false> {
  const field = (entry: string) => normalizeColumnName(entry.slice(0, entry.indexOf('=')));
  const parse = (value: string, previous: string[] = []) => {
    const other =
      value.indexOf('=') > 0
        ? previous.find((entry) => entry.indexOf('=') > 0 && field(entry) === field(value))
        : undefined;
    if (other !== undefined) {
      throw new UsageError(`--set given twice for ${other.slice(0, other.indexOf('=')).trim()}: give each field once`);
    }
    return [...previous, value];
  };
  return { ...repeatable('--set <Field=value>', description), parse };
}

export function choice<
  const F extends string,
  const C extends readonly string[],
  D extends C[number] | undefined = undefined,
>(flags: F, description: string, choices: C, defaultValue?: D): OptionSpec<F, C[number], Given<D>> {
  return withDefault({ kind: 'option', flags, description, choices }, defaultValue);
}

export function argument<const K extends string, const S extends string>(
  key: K,
  syntax: S,
  description: string,
): ArgumentSpec<K, S, ValueOfArgument<S>> {
  return { kind: 'argument', key, syntax, description };
}

export function argumentChoice<const K extends string, const S extends string, const C extends readonly string[]>(
  key: K,
  syntax: S,
  description: string,
  choices: C,
): ArgumentSpec<K, S, C[number]> {
  return { kind: 'argument', key, syntax, description, choices };
}

/** The flag in one line for `--help` (`summary`, then `shownDefault`); the description stays the full text. */
export function brief<const S extends OptionSpec>(summary: string | undefined, spec: S, shownDefault?: string): S {
  return {
    ...spec,
    ...(summary === undefined ? {} : { summary }),
    ...(shownDefault === undefined ? {} : { shownDefault }),
  };
}

/** Longest summary `--help` shows: a flag declared without one is cut to its first clause, at most this long. */
const SUMMARY_MAX = 60;

/** A flag's `--help` line (after its term): its summary or its description's first clause, and its default. */
export function briefLine(spec: OptionSpec): string {
  let summary = spec.summary;
  if (summary === undefined) {
    const end = spec.description.search(/; |: | \(|(?<!\be\.g|\bi\.e)\. /);
    summary = end === -1 ? spec.description : spec.description.slice(0, end);
    if (summary.length > SUMMARY_MAX) summary = `${summary.slice(0, SUMMARY_MAX - 1).trimEnd()}…`;
  }
  const shown =
    spec.shownDefault ??
    (spec.defaultValue !== undefined && typeof spec.defaultValue !== 'boolean' ? String(spec.defaultValue) : undefined);
  if (spec.mandatory === true) return `${summary} (required)`;
  return shown === undefined ? summary : `${summary} (default: ${shown})`;
}

/** Each registered flag's spec, for its `--help` line: made when help is shown, not at each start. */
const REGISTERED_SPECS = new WeakMap<Option, OptionSpec>();
/** The global flags each command refuses (its declaration's `takes`): completion leaves them out. */
export const REFUSED_GLOBALS = new WeakMap<Command, readonly string[]>();
/** Negated flags shown on their positive flag's line (`--[no-]keycode`) in `--help`. */
const PAIRED_NEGATIONS = new WeakSet<Option>();
const PAIRED_POSITIVES = new WeakSet<Option>();

/** The `--help` line of a registered flag (undefined for commander's own, such as -h). */
export function briefLineOf(option: Option): string | undefined {
  const spec = REGISTERED_SPECS.get(option);
  return spec === undefined ? undefined : briefLine(spec);
}

/** The term of a flag in `--help`: `--[no-]keycode` for a flag whose negation the table also has. */
export function briefTermOf(option: Option, term: string): string {
  return PAIRED_POSITIVES.has(option) ? term.replace(/--/, '--[no-]') : term;
}

/** A negation shown on its positive flag's line in `--help` (its full text stays in --all). */
export function shownWithItsPositive(option: Option): boolean {
  return PAIRED_NEGATIONS.has(option);
}

/** A command with more flags than this shows them under their groups' headings in `--help`. */
export const HELP_GROUPS_ABOVE = 10;

const DEFAULT_HELP_GROUP = 'Options';

/** The `--help` headings the record commands share, so that one kind of flag has one heading everywhere. */
export const HELP_GROUP = {
  input: 'Input',
  request: 'Request',
  scheduleFields: 'Schedule fields',
  collectionFields: 'Collection fields',
  nightlySync: 'Nightly sync',
  target: 'Target',
  output: 'Output',
  sending: 'Sending',
} as const;

/** The flags of `specs` under one `--help` heading (a flag naming its own keeps it): layout, not types. */
export function grouped<const T extends readonly Spec[]>(group: string, specs: T): T {
  return specs.map((spec) =>
    spec.kind === 'option' && spec.group === undefined ? { ...spec, group } : spec,
  ) as unknown as T;
}

/** A table's flags and arguments on a commander command, in order, under group headings past HELP_GROUPS_ABOVE. */
export function registerSpecs(command: Command, table: SpecTable): Command {
  const headed = table.filter((spec) => spec.kind === 'option').length > HELP_GROUPS_ABOVE;
  // A flag without a group of its own is under the heading of the flag before it (OptionSpec.group).
  let group = DEFAULT_HELP_GROUP;
  for (const spec of table) {
    if (spec.kind === 'argument') {
      const registered = new Argument(spec.syntax, spec.description);
      if (spec.choices !== undefined) registered.choices(spec.choices);
      command.addArgument(registered);
      continue;
    }
    group = spec.group ?? group;
    const registered = new Option(spec.flags, spec.description);
    if (spec.parse !== undefined) registered.argParser(spec.parse);
    if (spec.choices !== undefined) registered.choices(spec.choices);
    if (spec.defaultValue !== undefined) registered.default(spec.defaultValue);
    if (spec.mandatory) registered.makeOptionMandatory();
    if (registered.required || registered.optional) refuseSecondValue(registered, spec);
    if (headed) registered.helpGroup(`${group}:`);
    REGISTERED_SPECS.set(registered, spec);
    if (registered.negate) {
      const positive = command.options.find(
        (other) => !other.negate && other.attributeName() === registered.attributeName(),
      );
      if (positive !== undefined) {
        PAIRED_NEGATIONS.add(registered);
        PAIRED_POSITIVES.add(positive);
      }
    }
    command.addOption(registered);
  }
  return command;
}

/** A flag given twice or empty is refused (docs/cli.md, "Flags"). */
function refuseSecondValue(registered: Option, spec: OptionSpec): void {
  const parse = registered.parseArg;
  let given: string | undefined;
  registered.argParser((value: string, previous: unknown) => {
    if (value.trim() === '')
      throw new InvalidArgumentError(`${registered.long ?? registered.flags} is empty: give a value`);
    // No value said: one may hold a secret (a PIN, a password in an address), and commander
    // would quote an InvalidArgumentError's value too.
    if (given !== undefined && spec.repeatable !== true)
      throw new UsageError(`${registered.long ?? registered.flags} given twice: it takes one value; give it once`);
    given = value;
    return parse === undefined ? value : parse(value, previous);
  });
}

/**
 * A table's options taken out of a command's options: `[those, the rest]`, typed by the table, so a group
 * of flags (how a file is read) goes on as one; the rest is taken apart (`onlyGlobals` checks it).
 */
export function takeTableFlags<O extends object, const T extends SpecTable>(
  options: O,
  table: T,
): [Pick<O, Extract<keyof O, keyof OptionsOf<T>>>, Omit<O, keyof OptionsOf<T>>] {
  const rest = { ...options } as Record<string, unknown>;
  const taken: Record<string, unknown> = {};
  for (const spec of table) {
    const key = spec.kind === 'argument' ? spec.key : attributeOf(spec.flags);
    if (key in rest) taken[key] = rest[key];
    delete rest[key];
  }
  return [taken, rest] as never;
}

export function argumentKeys(table: SpecTable): string[] {
  return table.flatMap((spec) => (spec.kind === 'argument' ? [spec.key] : []));
}

/** The "Examples:" block that ends every command's --help; a line starting with `#` comments the example below it. */
export function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}`;
}
