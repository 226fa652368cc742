import type { CommandDeps } from './context.js';
import type { GlobalOptions } from './global-options.js';
import type { OptionsOf, SpecTable } from './option-table.js';
import type { TargetOf } from './target.js';

/**
 * A command is one declaration: where it sits in the tree, what `--help` says about it (purpose
 * and examples), its flags (an option table) and how to load its behaviour. Each lives in its
 * `commands/<command>.options.ts`, which `--help` and completion load without the behaviour:
 * `load` imports `commands/<command>.ts` (and with it undici, zod, the engine) only when the
 * command runs. `program.ts` only lists the declarations. Imports only types.
 */

/** A command's entry point, typed by the table it is declared with. */
export type CommandRun<Options> = (options: Options, deps: CommandDeps, target: TargetOf) => Promise<number>;

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
}): CommandDeclaration {
  return declaration;
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
