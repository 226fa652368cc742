import type { ProblemCode } from './codes.js';

/**
 * One thing wrong with one record, as it appears in the run report and in the engine's
 * error envelope. `field` is a path in the API's names (`Email`, `Hierarchies[0]`,
 * `Candidates[3].Email`, `Schedule.StartDateTime`); `line` is set where one item spans
 * several source lines (a schedule and its candidates).
 */
export interface Problem {
  field: string;
  code: ProblemCode;
  message: string;
  line?: number;
}

/** The result of validating one record: the wire-ready value, or every problem found. */
export type Validation<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/**
 * An offending value as a message quotes it, whatever the input format: JSON-quoted (controls and
 * quotes escaped) and cut to 60 characters, so a message stays one readable line.
 */
export function quotedValue(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

export function problem(field: string, code: ProblemCode, message: string): Problem {
  return { field, code, message };
}
