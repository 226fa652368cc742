import type { Command } from 'commander';
import { extname } from 'node:path';
import { UsageError } from '../system/errors.js';

/**
 * `-o json` wherever `--json` (kubectl's and gh's spelling); contradicting output flags refused,
 * never one silently winning (docs/cli-contract.md, "Global options"). Returns what to merge.
 */
export function resolveOutputFlags(
  command: Command,
  merged: { json?: unknown; output?: unknown; out?: unknown },
): { json?: true; output?: string } {
  const given: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) {
    if (at.getOptionValueSource('output') === 'cli') given.push(String(at.getOptionValue('output')));
  }
  const distinct = [...new Set(given)];
  if (distinct.length > 1) throw new UsageError(`conflicting output flags: -o ${distinct.join(' and -o ')}; give one`);
  const own = command.options.find((option) => option.long === '--output');
  const explicit = distinct[0];
  // `--json` alone on a command with its own formats means its json format, not its default one.
  if (explicit === undefined) {
    if (merged.json === true) return own?.argChoices?.includes('json') === true ? { json: true, output: 'json' } : {};
    // `--out results.xlsx` without -o: the format the file's name says (xlsx, csv, json); another keeps the default.
    const named = typeof merged.out === 'string' ? extname(merged.out).slice(1).toLowerCase() : '';
    return named !== '' && own?.argChoices?.includes(named) === true ? { output: named } : {};
  }
  if (own?.argChoices !== undefined && !own.argChoices.includes(explicit)) {
    throw new UsageError(`-o ${explicit}: choose one of ${own.argChoices.join(', ')}`);
  }
  if (explicit === 'json') return own === undefined ? { json: true } : { json: true, output: 'json' };
  if (own === undefined)
    throw new UsageError(
      `-o ${explicit}: this command prints only json (-o json, the same as --json) besides its summary`,
    );
  if (merged.json === true) throw new UsageError(`conflicting output flags: --json and -o ${explicit}; give one`);
  return { output: explicit };
}

/** `--json` or `-o` on a command that writes only text: exit 2, never plain text where a script expects JSON. */
export function refuseOutputFlags(name: string, merged: { json?: unknown; output?: unknown }): void {
  if (merged.json !== true && merged.output === undefined) return;
  throw textOnlyError(merged.json === true ? '--json' : `-o ${String(merged.output)}`, `examctl ${name}`);
}

/** One sentence for output flags on text: a command that writes text only, --help, --version. */
export function textOnlyError(given: string, what: string): UsageError {
  return new UsageError(`${given}: ${what} writes text only (no JSON, no other format); leave it out`, {
    code: 'E2003',
  });
}
