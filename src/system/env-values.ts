/**
 * The one reader of an environment variable holding a number of milliseconds
 * (EXAMCTL_LOCK_TIMEOUT_MS, EXAMCTL_STOP_GRACE_MS), the environment's counterpart of
 * src/flags/flag-values.ts: each variable is refused in the same words. Here, not under src/cli/,
 * because the store's lock module offers its variable's reader and the store imports nothing of
 * the CLI.
 */
import { UsageError } from './errors.js';

/** A whole number of ms (0 allowed); undefined when unset or blank; anything else a UsageError naming the variable. */
export function wholeMillisecondsFromEnv(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${name} must be a whole number of milliseconds, got ${JSON.stringify(raw)}`);
  }
  return Number(text);
}

/**
 * A whole number of ms within [min, max]: a value outside is a UsageError naming the variable and
 * the range (0 or an hour-long wait is a mistake, never a setting).
 */
export function millisecondsInRangeFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, min: number, max: number, range: string): number | undefined {
  const ms = wholeMillisecondsFromEnv(env, name);
  if (ms === undefined || (ms >= min && ms <= max)) return ms;
  throw new UsageError(`${name} must be from ${min} to ${max} milliseconds (${range}), got ${ms}`);
}

/** EXAMCTL_REQUEST_TIMEOUT_MS: one exchange with the platform or a state service, headers and whole body (docs/remote.md, "Limits, timeouts, retries"). */
export function requestTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  return millisecondsInRangeFromEnv(env, 'EXAMCTL_REQUEST_TIMEOUT_MS', 100, 3_600_000, '0.1 s to 1 hour');
}

/** A setting given as empty or blank text (`EXAMCTL_PROFILE=`) counts as not given. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
