import { UsageError } from '../system/errors.js';
import type { Env } from '../system/env-values.js';

/** The engine's notion of "now": decides whether a schedule is activated or finished. */
export type Clock = () => Date;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The system clock, or a fixed instant when EXAMCTL_NOW is set (docs/cli-contract.md, "Local engine
 * clock"). A value without a zone is refused rather than guessed.
 */
export function clockFromEnv(env: Env): Clock {
  const raw = env['EXAMCTL_NOW'];
  if (raw === undefined || raw.trim() === '') return () => new Date();
  const value = raw.trim();
  const millis = RFC3339.test(value) ? Date.parse(value.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(millis)) {
    throw new UsageError(
      `EXAMCTL_NOW must be an RFC 3339 instant with a zone, e.g. 2026-11-21T12:00:00Z (got "${value}")`,
    );
  }
  return () => new Date(millis);
}
