import { TAKEN_FLAGS, type TakenFlag } from '../../src/flags/taken-flags.js';
import { COMMANDS } from '../../src/cli/program.js';

/**
 * For a helper that runs every command on one target (`--target local --store <dir>`): `flags`
 * (each target flag with its value) in front of `argv`, less those the command `argv` names does
 * not take, which it would refuse (exit 2, docs/cli.md, "Global flags").
 */
export function onTarget(flags: readonly string[], argv: readonly string[]): string[] {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const declaration = COMMANDS.find(
    (each) => each.options !== undefined && each.path.every((word, index) => words[index] === word),
  );
  const kept: string[] = [];
  for (let index = 0; index < flags.length; index += 2) {
    const flag = flags[index] as TakenFlag;
    if (!TAKEN_FLAGS.includes(flag)) throw new Error(`onTarget: ${flag} is not a target flag with a value`);
    if (declaration === undefined || declaration.takes.includes(flag)) kept.push(flag, flags[index + 1]!);
  }
  return [...kept, ...argv];
}
