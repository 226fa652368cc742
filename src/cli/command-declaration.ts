import type { StoreKeyKind } from '../port/integration-api.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import { GLOBAL_OPTIONS, type GlobalOptions } from '../flags/global-options.js';
import { keptNames, type KeptOptions, type OptionsOf, type SpecTable } from '../flags/option-table.js';
import type { RerunInput } from '../pipeline/record-job.js';
import type { RecordKind } from '../domain/columns.js';
import type { TakenFlag } from '../flags/taken-flags.js';

/**
 * A command is one declaration in its `commands/<command>.options.ts`, which imports only flag tables, so
 * `--help` and completion load no behaviour: docs/architecture.md, "Add a command".
 */

export type CommandRun<Options> = (options: Options, deps: CliDeps, target: TargetOf) => Promise<number>;

export interface CommandBehaviour {
  readonly run: () => Promise<CommandRun<never>>;
  /** A resumable command's module's `rerunInput`; undefined for any other. */
  readonly rerunInput?: () => Promise<RerunInput | undefined>;
}

export type Behaviours = ReadonlyMap<string, CommandBehaviour>;

/** What a command's behaviour is given: the outside world, and the registry (for `runs resume`, completion). */
export type CliDeps = CommandDeps & {
  readonly behaviours?: Behaviours;
  readonly commands?: readonly CommandDeclaration[];
};

/**
 * How a report-writing command's journaled run is continued: `'rerun'` (its module exports `rerunInput`), or
 * why it cannot be resumed (test/runs/resume-registry.test.ts).
 */
type ResumeSupport = 'rerun' | { readonly notResumable: string };

export interface CommandDeclaration {
  /** `['user', 'sync']`: a command under its group; `['doctor']`: a top-level command or a group. */
  readonly path: readonly [string] | readonly [string, string];
  readonly description: string;
  /** The lines of its "Examples:" help block; a line starting with `#` comments the one below it. */
  readonly examples: readonly string[];
  /** A group (`examctl user`) has neither flags nor behaviour: only subcommands. */
  readonly options?: SpecTable;
  /** The global flags it takes of those a command takes only by saying so (taken-flags.ts); any other is exit 2. */
  readonly takes: readonly TakenFlag[];
  readonly reads?: RecordKind;
  /** Writes text for a person or a shell, never JSON: `--json` and `-o` are refused with exit 2. */
  readonly printsText?: true;
  /** Required with `--report` taken (a test checks): see ResumeSupport. */
  readonly resume?: ResumeSupport;
  /** The store's keys its run changes, whose head its journal records (docs/runs.md, "A store restored under a run"). */
  readonly storeKeys?: StoreKeyKind;
}

/** A declaration that remembers its table's type, so its behaviour is checked against it (program.ts). */
export interface DeclaredCommand<T extends SpecTable> extends CommandDeclaration {
  readonly options: T;
}

/** The table is the one source of the options type its behaviour receives. */
export function declareCommand<const T extends SpecTable>(declaration: DeclaredCommand<T>): DeclaredCommand<T> {
  return declaration;
}

/** The options a runnable command's behaviour receives: its table's and the global ones. */
export type CommandOptions<D> = D extends DeclaredCommand<infer T> ? OptionsOf<T> & GlobalOptions : never;

/** A command's name as a run journal and `--help` spell it (`user sync`), so `runs resume` finds it. */
export function commandName(declaration: Pick<CommandDeclaration, 'path'>): string {
  return declaration.path.join(' ');
}

export function declareGroup(declaration: {
  readonly name: string;
  readonly description: string;
  readonly examples: readonly string[];
}): CommandDeclaration {
  return { path: [declaration.name], description: declaration.description, examples: declaration.examples, takes: [] };
}

export function keptOptionNames(declaration: CommandDeclaration): KeptOptions {
  return keptNames(GLOBAL_OPTIONS, declaration.options ?? []);
}
