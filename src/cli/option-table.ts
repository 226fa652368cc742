import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import type { CommandDeps } from './context.js';
import type { GlobalOptions } from './global-options.js';
import type { RecordJob } from './pipeline/record-job.js';
import type { TargetOf } from './target.js';

/**
 * Flags and positional arguments as data. A command declares them once, in a table that
 * commander registers from and from which the TypeScript type of the command's `options` is
 * derived: the property name comes from the flag's text (`--schedule-id <id>` is `scheduleId`,
 * `--no-keycode` is `keycode`), exactly as commander names it, so a flag and the property its
 * command reads cannot drift apart. Then the declaration of a command that holds its table (below).
 * Imports only commander (and types): tables and declarations are loaded by `--help`.
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
  /** Taken more than once, every value in order (`repeatable`); any other flag with a value is refused when given twice. */
  readonly repeatable?: boolean;
  /**
   * The heading `--help` lists the flag under (`Input`, `Schedule fields`), when the command has
   * more than HELP_GROUPS_ABOVE flags. Absent: the group of the flag before it in the table, so a
   * flag added inside a `grouped(...)` block or after one lands in that group without naming it;
   * before any group, `Options`. Set through `grouped`.
   */
  readonly group?: string;
}

export interface ArgumentSpec<Key extends string = string, Syntax extends string = string> {
  readonly kind: 'argument';
  readonly key: Key;
  readonly syntax: Syntax;
  readonly description: string;
}

export type Spec = OptionSpec | ArgumentSpec;
export type SpecTable = readonly Spec[];

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type LongName<F extends string> = F extends `${string}--${infer Rest}` ? (Rest extends `${infer Name} ${string}` ? Name : Rest) : never;
/** commander's attribute name of a flag: `--no-input` sets `input`. */
export type AttributeOf<F extends string> = LongName<F> extends `no-${infer Name}` ? Camel<Name> : Camel<LongName<F>>;

/** A flag without `<value>` is a switch; `[value...]`/`<value...>` collects; otherwise one string. */
type ValueOfFlags<F extends string> = F extends `${string}...${string}` ? string[] : F extends `${string}<${string}` | `${string}[${string}` ? string : boolean;
type ValueOfArgument<S extends string> = S extends `${string}...${string}` ? string[] : string;

type KeyOf<S> = S extends OptionSpec<infer F> ? AttributeOf<F> : S extends ArgumentSpec<infer K> ? K : never;
type ValueOf<S> = S extends OptionSpec<string, infer V> ? V : S extends ArgumentSpec<string, infer Syntax> ? ValueOfArgument<Syntax> : never;
type IsAlways<S> = S extends OptionSpec<string, unknown, true> ? true : S extends ArgumentSpec<string, `<${string}`> ? true : false;

type Flatten<T> = { [K in keyof T]: T[K] };

/** The `options` a command receives, derived from its table. */
export type OptionsOf<T extends SpecTable> = Flatten<
  { [S in T[number] as IsAlways<S> extends true ? KeyOf<S> : never]: ValueOf<S> } & {
    [S in T[number] as IsAlways<S> extends true ? never : KeyOf<S>]?: ValueOf<S>;
  }
>;

/** `--flag` (a switch, `--no-flag` included) or `--flag <value>` (a string, `...`: a list), with an optional default. */
export function option<const F extends string>(flags: F, description: string): OptionSpec<F, ValueOfFlags<F>, false>;
export function option<const F extends string>(flags: F, description: string, defaultValue: ValueOfFlags<F>): OptionSpec<F, ValueOfFlags<F>, true>;
export function option<const F extends string>(flags: F, description: string, defaultValue?: ValueOfFlags<F>): OptionSpec<F, ValueOfFlags<F>, boolean> {
  return defaultValue === undefined ? { kind: 'option', flags, description, always: false } : { kind: 'option', flags, description, defaultValue, always: true };
}

/** A flag whose value is required to run the command. */
export function mandatory<const F extends string>(flags: F, description: string): OptionSpec<F, ValueOfFlags<F>, true> {
  return { kind: 'option', flags, description, always: true, mandatory: true };
}

/** A value checked and converted by `parse` (flag-values.ts), which throws commander's InvalidArgumentError. */
export function parsed<const F extends string, V>(flags: F, description: string, parse: (value: string, previous: V | undefined) => V): OptionSpec<F, V, false>;
export function parsed<const F extends string, V>(flags: F, description: string, parse: (value: string, previous: V | undefined) => V, defaultValue: V): OptionSpec<F, V, true>;
export function parsed<const F extends string, V>(flags: F, description: string, parse: (value: string, previous: V | undefined) => V, defaultValue?: V): OptionSpec<F, V, boolean> {
  return defaultValue === undefined
    ? { kind: 'option', flags, description, parse, always: false }
    : { kind: 'option', flags, description, parse, defaultValue, always: true };
}

/** A flag given as often as wanted: every value, in order (`--map a=B --map c=D`). */
export function repeatable<const F extends string>(flags: F, description: string): OptionSpec<F, string[], false> {
  return { kind: 'option', flags, description, parse: (value, previous) => [...(previous ?? []), value], repeatable: true, always: false };
}

/** One of a fixed set of words. */
export function choice<const F extends string, const C extends readonly string[]>(flags: F, description: string, choices: C): OptionSpec<F, C[number], false>;
export function choice<const F extends string, const C extends readonly string[]>(flags: F, description: string, choices: C, defaultValue: C[number]): OptionSpec<F, C[number], true>;
export function choice<const F extends string, const C extends readonly string[]>(flags: F, description: string, choices: C, defaultValue?: C[number]): OptionSpec<F, C[number], boolean> {
  return defaultValue === undefined
    ? { kind: 'option', flags, description, choices, always: false }
    : { kind: 'option', flags, description, choices, defaultValue, always: true };
}

/** A positional argument, handed to the command as `options[key]`. */
export function argument<const K extends string, const S extends string>(key: K, syntax: S, description: string): ArgumentSpec<K, S> {
  return { kind: 'argument', key, syntax, description };
}

/** A command with more flags than this shows them under their groups' headings in `--help`. */
export const HELP_GROUPS_ABOVE = 10;

/** The heading of flags declared before any group. */
export const DEFAULT_HELP_GROUP = 'Options';

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

/**
 * The flags of `specs` under one `--help` heading (a flag that names its own group keeps it).
 * The types stay the table's: a group is help layout, not part of the options a command reads.
 */
export function grouped<const T extends readonly Spec[]>(group: string, specs: T): T {
  return specs.map((spec) => (spec.kind === 'option' && spec.group === undefined ? { ...spec, group } : spec)) as unknown as T;
}

/** Each option of `table` with the heading `--help` shows it under (see OptionSpec.group). */
export function helpGroups(table: SpecTable): Map<OptionSpec, string> {
  const groups = new Map<OptionSpec, string>();
  let current = DEFAULT_HELP_GROUP;
  for (const spec of table) {
    if (spec.kind !== 'option') continue;
    current = spec.group ?? current;
    groups.set(spec, current);
  }
  return groups;
}

/**
 * Registers a table's flags and arguments on a commander command, in table order; with more than
 * HELP_GROUPS_ABOVE flags, each under its group's heading (commander's Option.helpGroup).
 */
export function registerSpecs(command: Command, table: SpecTable): Command {
  const groups = helpGroups(table);
  const headed = groups.size > HELP_GROUPS_ABOVE;
  for (const spec of table) {
    if (spec.kind === 'argument') {
      command.addArgument(new Argument(spec.syntax, spec.description));
      continue;
    }
    const registered = new Option(spec.flags, spec.description);
    if (spec.parse !== undefined) registered.argParser(spec.parse);
    if (spec.choices !== undefined) registered.choices(spec.choices);
    if (spec.defaultValue !== undefined) registered.default(spec.defaultValue);
    if (spec.mandatory) registered.makeOptionMandatory();
    if (registered.required || registered.optional) refuseSecondValue(registered, spec);
    if (headed) registered.helpGroup(`${groups.get(spec) ?? DEFAULT_HELP_GROUP}:`);
    command.addOption(registered);
  }
  return command;
}

/**
 * A flag that takes one value, given twice, is a usage error rather than commander's "the last
 * one wins": `--file a.csv --file b.csv` would sync only b.csv (and a night would take a.csv's
 * users for leavers), two `--report`s would write one report. Scripts that build an invocation
 * from parts must give each such flag once (docs/cli.md, "Flags").
 */
function refuseSecondValue(registered: Option, spec: OptionSpec): void {
  if (spec.repeatable === true) return;
  const parse = registered.parseArg;
  let given: string | undefined;
  registered.argParser((value: string, previous: unknown) => {
    if (given !== undefined) throw new InvalidArgumentError(`${registered.long ?? registered.flags} given twice (${given}, then ${value}): it takes one value; give it once`);
    given = value;
    return parse === undefined ? value : parse(value, previous);
  });
}

/** The positional argument keys of a table, in order, to name what commander hands the action. */
export function argumentKeys(table: SpecTable): string[] {
  return table.flatMap((spec) => (spec.kind === 'argument' ? [spec.key] : []));
}

/**
 * A command is one declaration: where it sits in the tree, what `--help` says about it (purpose
 * and examples), its flags (an option table) and how to load its behaviour. Each lives in its
 * `commands/<command>.options.ts`, which `--help` and completion load without the behaviour:
 * `load` imports `commands/<command>.ts` (and with it undici, zod, the engine) only when the
 * command runs. `program.ts` only lists the declarations.
 */

/** A command's entry point, typed by the table it is declared with. */
export type CommandRun<Options> = (options: Options, deps: CommandDeps, target: TargetOf) => Promise<number>;

/** A run's input read again with the job its command builds: its records and how they group into units. */
export type RerunInput = (
  options: Record<string, unknown>,
  deps: CommandDeps,
) => Promise<Pick<RecordJob<unknown>, 'records' | 'units' | 'readsOnlyFailedItself' | 'summaryNotes'>>;

/**
 * How a report-writing command's journaled run is continued (`runs resume`, which runs the
 * command's own `load` again) and listed whole (`runs show`, which reads the input again through
 * `input`, loaded on demand); or, in words, why a run of it cannot be resumed.
 * test/runs/resume-registry.test.ts fails for a command with `takesReport` and neither.
 */
export type ResumeSupport = { readonly input: () => Promise<RerunInput> } | { readonly notResumable: string };

export interface CommandDeclaration {
  /** `['user', 'sync']`: a command under its group; `['doctor']`: a top-level command or a group. */
  readonly path: readonly [string] | readonly [string, string];
  readonly description: string;
  /** The lines of its "Examples:" help block; a line starting with `#` comments the one below it. */
  readonly examples: readonly string[];
  /** A group (`examctl user`) has neither flags nor behaviour: only subcommands. */
  readonly options?: SpecTable;
  /** Erased to `never` for the registry's list; `declareCommand` checked it against `options`. */
  readonly load?: () => Promise<CommandRun<never>>;
  /**
   * Writes a run report, so honours the global `--report`. Absent (the default), `--report` is
   * refused with exit 2 before the command runs (command-tree.ts), never silently ignored.
   */
  readonly takesReport?: boolean;
  /**
   * Honours the global `--dry-run` (changes nothing with it) or only reads. Absent (the default),
   * `--dry-run` is refused with exit 2: a command that would change things all the same (prune
   * runs, forget, write the config) must not look rehearsed.
   */
  readonly takesDryRun?: boolean;
  /** Required with `takesReport` (a test checks): see ResumeSupport. */
  readonly resume?: ResumeSupport;
}

/**
 * Declares a runnable command. The table is the one source of the options type: a `run` reading a
 * flag its table does not declare fails the type check here.
 */
export function declareCommand<const T extends SpecTable>(declaration: {
  readonly path: readonly [string] | readonly [string, string];
  readonly description: string;
  readonly examples: readonly string[];
  readonly options: T;
  readonly load: () => Promise<CommandRun<OptionsOf<T> & GlobalOptions>>;
  readonly takesReport?: boolean;
  readonly takesDryRun?: boolean;
  readonly resume?: ResumeSupport;
}): CommandDeclaration {
  return declaration;
}

/** A command's name as a run journal and `--help` spell it (`user sync`): its path, so `runs resume` finds it (resume-registry.ts). */
export function commandName(declaration: Pick<CommandDeclaration, 'path'>): string {
  return declaration.path.join(' ');
}

/** Declares a group of commands (`examctl config`): its help's purpose and examples. */
export function declareGroup(declaration: { readonly name: string; readonly description: string; readonly examples: readonly string[] }): CommandDeclaration {
  return { path: [declaration.name], description: declaration.description, examples: declaration.examples };
}

/**
 * The "Examples:" block that ends every command's --help (test/human/help.test.ts checks each
 * command has at least two). A line starting with `#` is a comment for the example below it.
 */
export function examples(...lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}`;
}

/** A command without flags of its own. */
export const NO_OPTIONS = [] as const;
