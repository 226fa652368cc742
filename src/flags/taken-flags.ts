import { Option } from 'commander';
import { UsageError } from '../system/errors.js';
import { DRY_RUN_OUT, GLOBAL_OPTIONS } from './global-options.js';
import { attributeOf, type OptionSpec } from './option-table.js';

/**
 * The global flags a command takes only where its declaration lists them (`takes`); any other is refused
 * with exit 2 and E2007 before the command runs (docs/cli.md, "Global flags"). Every global flag not marked
 * `everyCommand` in GLOBAL_OPTIONS is one: a new global flag is refused everywhere until a command takes it.
 * A negation goes with its flag (taking `--strict` takes `--no-strict`).
 */
type LongFlag<F extends string> = F extends `${string}--${infer Rest}`
  ? `--${Rest extends `${infer Name} ${string}` ? Name : Rest}`
  : never;
type Taken<S> = S extends { readonly everyCommand: string }
  ? never
  : S extends OptionSpec<infer F>
    ? LongFlag<F>
    : never;
export type TakenFlag = Exclude<Taken<(typeof GLOBAL_OPTIONS)[number]>, `--no-${string}`>;

/** Each global flag's long name as typed, and the flag a command takes for it (a negation: its flag's). */
const GLOBAL_LONGS = GLOBAL_OPTIONS.flatMap((spec: OptionSpec) => {
  const long = new Option(spec.flags).long;
  return long === undefined ? [] : [{ long, flag: takenFor(long), everyCommand: spec.everyCommand !== undefined }];
});

function takenFor(typed: string): TakenFlag {
  return typed.replace('--no-', '--') as TakenFlag;
}

export const TAKEN_FLAGS = GLOBAL_LONGS.flatMap(({ long, flag, everyCommand }) =>
  everyCommand || long !== flag ? [] : [flag],
);

/** The global flags, as typed, a command that takes `takes` refuses: completion leaves them out. */
export function refusedGlobalFlags(takes: readonly TakenFlag[]): string[] {
  return GLOBAL_LONGS.flatMap(({ long, flag, everyCommand }) => (everyCommand || takes.includes(flag) ? [] : [long]));
}

/** The global flags, as typed, a command that takes `takes` takes by saying so (a negation with its flag). */
export function takenGlobalFlags(takes: readonly TakenFlag[]): string[] {
  return GLOBAL_LONGS.flatMap(({ long, flag, everyCommand }) => (!everyCommand && takes.includes(flag) ? [long] : []));
}

/** The global flags every command takes, as typed. */
export const EVERY_COMMAND_FLAGS = GLOBAL_LONGS.flatMap(({ long, everyCommand }) => (everyCommand ? [long] : []));

/**
 * A command that takes `--store` and not `--target` takes `--target local` all the same: what it does anyway
 * (a script that prefixes its target to every command); `--target remote` is refused.
 */
export function takesTargetLocal(takes: readonly TakenFlag[]): boolean {
  return takes.includes('--store') && !takes.includes('--target');
}

/** What a command that resolves a target takes: the flags that choose it, reach it and pace the requests. */
export const TARGET_FLAGS = [
  '--target',
  '--store',
  '--base-url',
  '--token-file',
  '--profile',
  '--concurrency',
  '--rate',
  '--allow-insecure-http',
] as const satisfies readonly TakenFlag[];

/** What a command that sends records through the run pipeline takes besides its target. */
export const SENDING_FLAGS = [
  '--dry-run',
  '--report',
  '--max-errors',
  '--strict',
] as const satisfies readonly TakenFlag[];

export interface TakingCommand {
  readonly name: string;
  readonly takes: readonly TakenFlag[];
  /** It writes a file of its own with `--out` (what `--report` or `--dry-run` given there meant). */
  readonly writesOut: boolean;
}

/** The first flag given that `command` does not take, as typed (`--no-strict` for a `strict` of false). */
export function refusedFlag(command: TakingCommand, given: Readonly<Record<string, unknown>>): string | undefined {
  for (const flag of TAKEN_FLAGS) {
    const value = given[attributeOf(flag)];
    if (value === undefined || command.takes.includes(flag)) continue;
    if (flag === '--target' && value === 'local' && takesTargetLocal(command.takes)) continue;
    return value === false ? flag.replace('--', '--no-') : flag;
  }
  return undefined;
}

/** Why a flag it does not take is refused. */
const PROFILE_HINTS: Partial<Record<TakenFlag, string>> = {
  '--store': ' (a profile keeps no store)',
  '--token-file': ' (a profile keeps one: config set-profile <name> --token-file <path>)',
};

/** The refusal of `typed` (as refusedFlag returns it) by `command`, naming those of `commands` that take it. */
export function flagRefusal(typed: string, command: TakingCommand, commands: readonly TakingCommand[]): UsageError {
  // Two flags that do not go together (E2000), as where --dry-run is taken and --out refuses it.
  if (typed === '--dry-run' && command.writesOut) return new UsageError(DRY_RUN_OUT);
  const takers = commands.filter((each) => each.takes.includes(takenFor(typed))).map((each) => each.name);
  return new UsageError(refusalText(typed, command, takers), { code: 'E2007' });
}

function refusalText(typed: string, command: TakingCommand, takers: readonly string[]): string {
  const { name, takes, writesOut } = command;
  const flag = takenFor(typed);
  if (flag === '--dry-run')
    return `--dry-run: ${name} has no dry run and would change things all the same; leave --dry-run out`;
  if (flag === '--report') {
    const instead = writesOut ? `use --out <file> for ${name}` : `${name} writes no run report`;
    return `--report is for commands that send or check records (${takers.join(', ')}); ${instead}`;
  }
  if (!(TARGET_FLAGS as readonly string[]).includes(flag))
    return `${typed} is for ${takers.join(', ')}; ${name} does not take it: leave ${typed} out`;
  const read = TARGET_FLAGS.filter((each) => takes.includes(each));
  const local = flag === '--target' && takesTargetLocal(takes) ? ' (and --target local)' : '';
  const what =
    read.length === 0
      ? 'reads no target or profile'
      : `takes ${read.join(', ')}${local}, not ${flag}${local && ' remote'}`;
  // Where a profile is written (set-profile, login): what the profile keeps instead.
  const kept = read.includes('--base-url') ? PROFILE_HINTS[flag] : undefined;
  const hint = read.length === 0 ? (flag === '--profile' ? ' (scripts: EXAMCTL_PROFILE)' : '') : (kept ?? '');
  return `${flag}: ${name} ${what}${hint}; leave ${flag} out`;
}
