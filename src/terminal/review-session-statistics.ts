/** Counts and the mean score of a review session's results, for `review-session show`. */
import type { PassedStatus, ReviewSessionResult } from '../domain/types.js';

/** A score as a number, or undefined. A numeric string is accepted from a lenient server. */
export function numericScore(score: unknown): number | undefined {
  const value = typeof score === 'number' ? score : typeof score === 'string' && score.trim() !== '' ? Number(score) : Number.NaN;
  return Number.isFinite(value) ? value : undefined;
}

export interface ResultStatistics {
  /** Every PassedStatus, zeros included. */
  counts: Record<PassedStatus, number>;
  /** Results whose PassedStatus is none of the four (a server that knows more states). */
  other: number;
  /** Mean over the results with a numeric score; null when none has one. */
  meanScore: number | null;
  scored: number;
}

export function resultStatistics(results: readonly ReviewSessionResult[]): ResultStatistics {
  const counts: Record<PassedStatus, number> = { SATISFACTORY: 0, NOT_SATISFACTORY: 0, NOT_SUBMITTED: 0, VOIDED: 0 };
  let other = 0;
  let sum = 0;
  let scored = 0;
  for (const result of results) {
    const status = result.PassedStatus;
    if (Object.hasOwn(counts, status)) counts[status] += 1;
    else other += 1;
    const score = numericScore(result.Score);
    if (score !== undefined) {
      sum += score;
      scored += 1;
    }
  }
  return { counts, other, meanScore: scored === 0 ? null : sum / scored, scored };
}

