import { expect } from 'vitest';

/** The counts of a run's human summary (`N items: A ok, B partial, C failed, D skipped`, `runs list`'s row, a plan's run). */
export interface SummaryCounts {
  /** Absent where the line gives no total (`run <id>: ...` of an applied plan). */
  total: number | undefined;
  /** `at least N items`: a run whose journal does not record its total. */
  atLeast: boolean;
  /** Counted as `valid`/`invalid`: a dry run. */
  dryRun: boolean;
  ok: number;
  partial: number;
  failed: number;
  skipped: number;
}

const SUMMARY =
  /(?:(at least )?([\d,]+) items?|run \S+): ([\d,]+) (ok|valid), ([\d,]+) partial, ([\d,]+) (?:failed|invalid), ([\d,]+) skipped/;

const count = (digits: string): number => Number(digits.replaceAll(',', ''));

/**
 * The counts of the first summary in `text`: a test pins these facts, not the words around them, so
 * a summary reworded changes this one pattern. Fails when `text` holds no summary.
 */
export function summaryOf(text: string): SummaryCounts {
  const found = SUMMARY.exec(text);
  expect(found, `no run summary in:\n${text}`).not.toBeNull();
  const [, atLeast, total, ok, word, partial, failed, skipped] = found!;
  return {
    total: total === undefined ? undefined : count(total),
    atLeast: atLeast !== undefined,
    dryRun: word === 'valid',
    ok: count(ok!),
    partial: count(partial!),
    failed: count(failed!),
    skipped: count(skipped!),
  };
}

/**
 * The one line of `text` that holds every fact given (an id, a path, a count, a field), for a
 * notice that has no code: the test pins what the line says, not its sentence. Fails when no line
 * holds them all.
 */
export function lineWith(text: string, ...facts: readonly (string | number)[]): string {
  const line = text.split('\n').find((each) => facts.every((fact) => each.includes(String(fact))));
  expect(
    line,
    `no line with ${facts.map((fact) => JSON.stringify(String(fact))).join(', ')} in:\n${text}`,
  ).toBeDefined();
  return line!;
}
