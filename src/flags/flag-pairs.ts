import { Option, type Command } from 'commander';
import { UsageError } from '../system/errors.js';
import type { FlagNeed, Spec, SpecTable } from './option-table.js';

/**
 * Which of a command's own flags need or exclude others, declared on its table (`needing`, `excluding`) and
 * refused before the command runs (E2000, docs/cli.md, "Flags"): no behaviour checks a pair by hand.
 */

/** Every option of `specs` refused without one of `anyOf`; checked before the needs declared inside it. */
export function needing<const T extends readonly Spec[]>(
  anyOf: readonly string[],
  why: string | undefined,
  specs: T,
): T {
  const need: FlagNeed = why === undefined ? { anyOf } : { anyOf, why };
  return specs.map((spec) =>
    spec.kind === 'option' ? { ...spec, needs: [need, ...(spec.needs ?? [])] } : spec,
  ) as unknown as T;
}

/** Every option of `specs` refused with any of `flags` (`--disable-missing and --only-failed do not go together`). */
export function excluding<const T extends readonly Spec[]>(flags: readonly string[], why: string, specs: T): T {
  return specs.map((spec) =>
    spec.kind === 'option' ? { ...spec, excludes: [...(spec.excludes ?? []), { flags, why }] } : spec,
  ) as unknown as T;
}

/** `a`, `a or b`, `a, b or c`. */
function either(flags: readonly string[]): string {
  return flags.length < 2 ? (flags[0] ?? '') : `${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}`;
}

/** The refusal of the first flag of `table` given on the command line (a default is not given) whose pair fails. */
export function pairingRefusal(table: SpecTable, command: Command): UsageError | undefined {
  const given = (flags: string): boolean => {
    const source = command.getOptionValueSource(new Option(flags).attributeName());
    return source !== undefined && source !== 'default';
  };
  const long = (flags: string): string => new Option(flags).long ?? flags;
  const byLong = new Map(table.flatMap((spec) => (spec.kind === 'option' ? [[long(spec.flags), spec.flags]] : [])));
  const isGiven = (flag: string): boolean => {
    const flags = byLong.get(flag);
    return flags !== undefined && given(flags);
  };
  for (const spec of table) {
    if (spec.kind !== 'option' || !given(spec.flags)) continue;
    const flag = long(spec.flags);
    for (const { anyOf, why } of spec.needs ?? [])
      if (!anyOf.some(isGiven))
        return new UsageError(`${flag} needs ${either(anyOf)}${why === undefined ? '' : `: ${why}`}`);
    for (const { flags, why } of spec.excludes ?? []) {
      const other = flags.find(isGiven);
      if (other !== undefined) return new UsageError(`${flag} and ${other} do not go together: ${why}`);
    }
  }
  return undefined;
}
