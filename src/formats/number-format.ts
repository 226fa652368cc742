/**
 * How examctl writes numbers for people, in the progress line and the run summary alike, so the
 * same count never reads two ways in one run.
 */

/**
 * `12,000` whatever the machine's locale, grouped by hand: the first toLocaleString of a process loads ICU's
 * number formatting, 30-60 ms that every run's summary line paid.
 */
export function formatCount(value: number): string {
  const rounded = Math.round(value);
  const digits = String(Math.abs(rounded));
  // Not finite, or so large that String() writes an exponent: leave it to ICU.
  if (!/^\d+$/.test(digits)) return rounded.toLocaleString('en-US');
  // A comma before every digit that has a multiple of three digits after it.
  const grouped = digits.replace(/\B(?=(?:\d{3})+$)/g, ',');
  return rounded < 0 || Object.is(rounded, -0) ? `-${grouped}` : grouped;
}

/** `a, b, c and 4 more`: the first `shown` of `items`, then how many more there are. */
export function namedFirst(items: readonly string[], shown: number): string {
  return (
    items.slice(0, shown).join(', ') + (items.length > shown ? ` and ${formatCount(items.length - shown)} more` : '')
  );
}

/** `2,400/s`; below 10 a second, one decimal (`0.5/s`), so a slow remote run does not read `0/s`. */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return '0/s';
  return perSecond < 10 ? `${perSecond.toFixed(1)}/s` : `${formatCount(perSecond)}/s`;
}

/** `16 s`, `4 min 5 s`, `2 h 3 min`: rounded up, so an ETA never promises too little. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.ceil(totalSeconds));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A wait given in ms: `500 ms`, `1.5 s` (never rounded up: `2 s` for 1,500 ms promises more), else `4 min 5 s`. */
export function formatMilliseconds(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  return ms < 60_000 ? `${+(Math.floor(ms / 100) / 10).toFixed(1)} s` : formatDuration(ms / 1000);
}

/** A size for people: `48 MiB`, `512 KiB`, `300 bytes` (binary units; one decimal only below 10, `1.5 MiB`). */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB'];
  if (!(bytes >= 1024)) return `${Math.max(0, Math.round(bytes))} bytes`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown =
    value < 10 && !Number.isInteger(Math.round(value * 10) / 10)
      ? (Math.round(value * 10) / 10).toFixed(1)
      : String(Math.round(value));
  return `${shown} ${units[unit]}`;
}

/** "1 record", "12,000 records": a count in the summary's numbers, and its noun. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(count)} ${count === 1 ? noun : plural}`;
}
