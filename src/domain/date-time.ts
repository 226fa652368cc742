/**
 * Calendar dates and RFC 3339 date-times, read one way: the date-time rule and the CLI's date flags both call
 * `parseDateTime`. Imports nothing: `--help` loads it with the option tables.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})?$/;

/** The instant of a wall clock read as UTC; years 0..99 stay literal, where Date.UTC would map them to 19xx. */
export function utcDate(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return date;
}

/** True when day `d` of month `m` is in year `y`'s calendar (Date rolls a day past the month's end over). */
export function isCalendarDate(y: number, m: number, d: number): boolean {
  const date = utcDate(y, m, d);
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

type DateTimeParse =
  | { ok: true; iso: string; epochMs: number }
  | { ok: false; reason: 'format' | 'no-zone' | 'calendar' };

/**
 * An RFC 3339 date-time with an explicit zone, normalised to UTC `yyyy-mm-ddThh:mm:ss.sssZ`; no
 * zone, or a leap second, is refused (docs/interpretations.md, "Field rules": DateTime).
 */
export function parseDateTime(s: string): DateTimeParse {
  const m = RFC3339.exec(s);
  if (m === null) return { ok: false, reason: 'format' };
  const zone = m[8];
  if (zone === undefined) return { ok: false, reason: 'no-zone' };
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const sec = Number(m[6]);
  if (!isCalendarDate(y, mo, d) || h > 23 || mi > 59 || sec > 59) return { ok: false, reason: 'calendar' };
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMin = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return { ok: false, reason: 'calendar' };
    offsetMin = (oh * 60 + om) * (zone[0] === '-' ? -1 : 1);
  }
  const epochMs = utcDate(y, mo, d, h, mi, sec, ms).getTime() - offsetMin * 60_000;
  if (!Number.isFinite(epochMs)) return { ok: false, reason: 'calendar' };
  const iso = new Date(epochMs).toISOString();
  // The UTC form must still be a four-digit year to stay inside RFC 3339.
  if (iso.length !== 24) return { ok: false, reason: 'calendar' };
  return { ok: true, iso, epochMs };
}
