/**
 * The one reader of an environment variable of milliseconds, the counterpart of src/flags/flag-values.ts.
 * Not under src/cli/: the store's lock module offers its variable's reader, and the store imports no CLI.
 */
import { UsageError } from './errors.js';

/** The environment as examctl reads it: process.env, or the one a test or a resume hands over. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A whole number of ms (0 allowed); undefined when unset or blank; anything else a UsageError naming the variable. */
export function wholeMillisecondsFromEnv(env: Env, name: string): number | undefined {
  const text = nonEmpty(env[name]);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${name} must be a whole number of milliseconds, got ${JSON.stringify(env[name])}`);
  }
  return Number(text);
}

/**
 * EXAMCTL_REQUEST_TIMEOUT_MS: one exchange with the platform or a state service, headers and whole
 * body (docs/remote.md, "Limits, timeouts, retries"); 0 or an hour-long wait is a mistake, refused.
 */
export function requestTimeoutFromEnv(env: Env): number | undefined {
  const ms = wholeMillisecondsFromEnv(env, 'EXAMCTL_REQUEST_TIMEOUT_MS');
  if (ms === undefined || (ms >= 100 && ms <= 3_600_000)) return ms;
  throw new UsageError(
    `EXAMCTL_REQUEST_TIMEOUT_MS must be from 100 to 3600000 milliseconds (0.1 s to 1 hour), got ${ms}`,
  );
}

/** A setting given as blank text (`EXAMCTL_STORE=`) counts as not given (an empty EXAMCTL_PROFILE: settings.ts). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
