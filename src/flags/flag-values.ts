/** Every command reads and refuses a number, duration, date or share in the same words: docs/architecture.md. */
import { InvalidArgumentError } from 'commander';
import { parseDateTime } from '../domain/date-time.js';
import { quotedValue } from '../domain/problem.js';

/** A flag's value read by `parse`, else commander's refusal: `<flag> must be <what>`. */
function checked<T>(parse: (text: string) => T | undefined, what: string) {
  return (name: string) =>
    (value: string): T => {
      const parsed = parse(value);
      if (parsed === undefined) throw new InvalidArgumentError(`${name} must be ${what}`);
      return parsed;
    };
}

/** A whole number of at least 1 (`--concurrency`, `--max-errors`). */
export const positiveInt = (name: string) => wholeNumberIn(name, 1);

/** A number above 0, fractions allowed (`--rate`). */
export const positiveNumber = checked(
  (text) => (Number.isFinite(Number(text)) && Number(text) > 0 ? Number(text) : undefined),
  'a number above 0',
);

/** A whole number from `min`, to `max` when given (`--faults-seed`). */
export function wholeNumberIn(name: string, min: number, max = Number.POSITIVE_INFINITY) {
  return checked(
    (text) => (/^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined),
    `a whole number ${max === Number.POSITIVE_INFINITY ? `of at least ${min}` : `from ${min} to ${max}`}`,
  )(name);
}

const SECOND = 1000;
const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ...['ms', 'msec', 'millisecond', 'milliseconds'].map((unit) => [unit, 1] as const),
  ...['s', 'sec', 'secs', 'second', 'seconds'].map((unit) => [unit, SECOND] as const),
  ...['m', 'min', 'mins', 'minute', 'minutes'].map((unit) => [unit, 60 * SECOND] as const),
  ...['h', 'hr', 'hrs', 'hour', 'hours'].map((unit) => [unit, 3600 * SECOND] as const),
  ...['d', 'day', 'days'].map((unit) => [unit, 86_400 * SECOND] as const),
  ...['w', 'week', 'weeks'].map((unit) => [unit, 7 * 86_400 * SECOND] as const),
]);
const DURATION_PART = /(\d+(?:\.\d+)?)\s*([a-z]+)/gy;

/**
 * A duration in milliseconds: number-unit pairs (`30d`, `1h 30m`, `1 min 5 s`, `500ms`; ms, s, m/min, h, d, w
 * and long names, any case). A bare number is refused: `--older-than 30` could mean days or seconds.
 */
export function parseDuration(text: string): number | undefined {
  const source = text.trim().toLowerCase();
  if (source === '') return undefined;
  let total = 0;
  let at = 0;
  while (at < source.length) {
    DURATION_PART.lastIndex = at;
    const match = DURATION_PART.exec(source);
    const unit = match === null ? undefined : UNIT_MS.get(match[2] as string);
    if (match === null || unit === undefined) return undefined;
    total += Number(match[1]) * unit;
    at = DURATION_PART.lastIndex;
    while (source[at] === ' ' || source[at] === ',') at += 1;
  }
  return Number.isFinite(total) ? Math.round(total) : undefined;
}

/** A flag holding a duration (`runs prune --older-than 30d`): milliseconds, 0 allowed. */
export const duration = checked(parseDuration, 'a duration with its unit, e.g. 30d, 12h, 90s or "1h 30m"');

/** An instant (epoch ms), or an age (ms) `instantOf` resolves against the command's clock (no parser reads it). */
type DateOrAge = { readonly at: number } | { readonly ago: number };

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `2026-11-01` (00:00 UTC), an RFC 3339 instant with its zone (none: refused, not guessed), or `7d` (ago). */
export function parseDateOrAge(text: string): DateOrAge | undefined {
  const value = text.trim();
  const instant = parseDateTime(DAY_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (instant.ok) return { at: instant.epochMs };
  const ago = parseDuration(value);
  return ago === undefined ? undefined : { ago };
}

/** A flag holding a date or an age (`runs list --since 7d`). */
export const dateOrAge = checked(
  parseDateOrAge,
  'a date (2026-11-01: that day 00:00 UTC), an RFC 3339 instant with its zone (2026-11-01T09:00:00+01:00) or an age (7d, 12h)',
);

/** The instant a `DateOrAge` names, in epoch ms, an age counted back from `now`. */
export function instantOf(value: DateOrAge, now: Date): number {
  return 'at' in value ? value.at : now.getTime() - value.ago;
}

/** `50` (a count) or `2%` / `2.5 %` (a share, at most 100%), as `--max-disable` takes it. */
type CountOrPercent = { count: number } | { percent: number };

export function parseCountOrPercent(text: string): CountOrPercent | undefined {
  const value = text.trim();
  if (/^\d+$/.test(value)) return { count: Number(value) };
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(value);
  if (percent !== null && Number(percent[1]) <= 100) return { percent: Number(percent[1]) };
  return undefined;
}

/** Why `value` is no count or share (`--max-disable`, `--max-prune`). */
export function notCountOrPercent(name: string, value: string): string {
  return `${name} must be a number of users (e.g. 50) or a percentage of the remembered users (e.g. 2%), got ${quotedValue(value)}`;
}

/** A flag holding a count or a share (`--max-disable 2%`): kept as given, refused as the command line is read. */
export function countOrPercent(name: string) {
  return (value: string): string => {
    if (parseCountOrPercent(value) === undefined) throw new InvalidArgumentError(notCountOrPercent(name, value));
    return value;
  };
}
