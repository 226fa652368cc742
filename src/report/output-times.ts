/**
 * Times and dates as examctl writes them (docs/cli.md, "review-session show": "Times"): ISO with the zone's
 * offset, by a `--date-format` (the input side's tokens, so a file reads back), or as an Excel date. Pure.
 */
import { isCalendarDate, parseDateTime } from '../domain/date-time.js';
import {
  dateText,
  dateTimeText,
  formattedWall,
  FORMAT_TOKENS,
  offsetText,
  pad,
  readTimeSettings,
  wallClockAt,
  wallClockInZone,
  type DateFormat,
  type TimeSettings,
  type WallClock,
} from '../domain/local-time.js';
import type { ExcelDate, WorkbookDateFormats } from './xlsx-workbook.js';

/** How times are written: the zone they are shown in, and the admin's format when one was asked for. */
export interface OutputTimes {
  zone: string;
  format?: DateFormat | undefined;
}

type OutputTimesReading = { ok: true; times: OutputTimes } | { ok: false; message: string };

/** The settings checked (readTimeSettings), the zone `defaultZone` when none was given. */
export function readOutputTimes(settings: TimeSettings, defaultZone: string): OutputTimesReading {
  const reading = readTimeSettings(settings);
  if (!reading.ok) return reading;
  return { ok: true, times: { zone: reading.zone ?? defaultZone, format: reading.format } };
}

/** RFC 3339 with an offset, seconds optional (`2026-10-13T18:21Z`): what a service sends as an instant. */
const INSTANT = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant a text names (epoch ms), or undefined when it is no RFC 3339 instant. */
export function instantOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = INSTANT.exec(value.trim());
  if (match === null) return undefined;
  const parsed = parseDateTime(`${match[1]}${match[2] ?? ':00'}${match[3]}`);
  return parsed.ok ? parsed.epochMs : undefined;
}

/** A date of birth sent as a midnight instant (`2004-03-17T00:00:00.000Z`) or a date: the calendar date as written. */
const MIDNIGHT_OR_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt]00:00(?::00(?:\.0+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;

/** The calendar date of a date, or of an instant at midnight (any offset; never moved by a zone). */
export function calendarDateOf(value: unknown): WallClock | undefined {
  if (typeof value !== 'string') return undefined;
  const match = MIDNIGHT_OR_DATE.exec(value.trim());
  if (match === null) return undefined;
  const w: WallClock = { y: Number(match[1]), mo: Number(match[2]), d: Number(match[3]), h: 0, mi: 0, s: 0 };
  return isCalendarDate(w.y, w.mo, w.d) ? w : undefined;
}

/**
 * An instant as text in the chosen zone: by the `--date-format`, else `iso` (RFC 3339 with the zone's offset)
 * or `minutes` (`2026-10-13 19:21`); a wall clock the zone shows twice ends in its offset.
 */
export function instantText(epochMs: number, times: OutputTimes, style: 'iso' | 'minutes'): string {
  const { wall, ms, offsetMinutes } = wallClockAt(epochMs, times.zone);
  const iso = (): string => `${dateTimeText(wall)}${ms === 0 ? '' : `.${pad(ms, 3)}`}${offsetText(offsetMinutes)}`;
  if (times.format === undefined && style === 'iso') return iso();
  // A wall clock the zone shows twice (the hour the clocks go back) says which of the two by its
  // offset (`25/10/2026 01:30 +01:00`), as the input side reads it back with the same flags.
  const twice = wallClockInZone(wall, times.zone).ok ? '' : ` ${offsetText(offsetMinutes)}`;
  if (times.format !== undefined) {
    // Seconds (or milliseconds) the format cannot write would be lost, and the text would read
    // back as another instant: RFC 3339 instead, which every --date-format reads too.
    if (
      ms !== 0 ||
      (wall.s !== 0 && times.format.dateTime !== undefined && !times.format.dateTimeOrder.includes('ss'))
    ) {
      return iso();
    }
    return `${formattedWall(wall, times.format, true)}${twice}`;
  }
  return `${dateText(wall)} ${pad(wall.h)}:${pad(wall.mi)}${twice}`;
}

/** A calendar date as text: by the `--date-format`'s date part, else ISO `YYYY-MM-DD`. */
export function calendarDateText(w: WallClock, times: Pick<OutputTimes, 'format'>): string {
  return times.format === undefined ? dateText(w) : formattedWall(w, times.format, false);
}

/** A number's text that reads back as the same text (`25`, `-3`, `87.5`; not `+7`, `007`, `12.50`, `1e3`). */
export function plainNumber(text: string): number | undefined {
  const number = Number(text);
  return text !== '' &&
    Number.isFinite(number) &&
    Math.abs(number) <= Number.MAX_SAFE_INTEGER &&
    String(number) === text
    ? number
    : undefined;
}

/** Days from 1899-12-30 to 1970-01-01 in the 1900 date system. */
const EPOCH_1900 = 25569;
/** 1900-03-01: Excel's serials are days from 1899-12-30 only from here (its phantom 29 February 1900). */
const FIRST_SERIAL = 61;
/** 9999-12-31, Excel's last day. */
const LAST_SERIAL = 2_958_465;

function serialOf(w: WallClock, ms: number): number | undefined {
  const day = Date.UTC(w.y, w.mo - 1, w.d) / 86_400_000 + EPOCH_1900;
  if (w.y < 100 || day < FIRST_SERIAL || day > LAST_SERIAL) return undefined;
  return day + (w.h * 3600 + w.mi * 60 + w.s + ms / 1000) / 86_400;
}

/**
 * An instant as an Excel date-time in the chosen zone's wall clock (Excel keeps no zone); undefined outside
 * Excel's dates, and in the hour the clocks show twice (it stays text, with its offset).
 */
export function excelDateTime(epochMs: number, zone: string): ExcelDate | undefined {
  const { wall, ms } = wallClockAt(epochMs, zone);
  if (!wallClockInZone(wall, zone).ok) return undefined;
  const serial = serialOf(wall, ms);
  return serial === undefined ? undefined : { serial, time: true };
}

/** A calendar date as an Excel date. Undefined outside Excel's dates. */
export function excelDate(w: WallClock): ExcelDate | undefined {
  const serial = serialOf({ ...w, h: 0, mi: 0, s: 0 }, 0);
  return serial === undefined ? undefined : { serial, time: false };
}

/**
 * The Excel number formats that show dates and date-times the way the `--date-format` writes
 * them (`DD/MM/YYYY HH:mm` -> `dd/mm/yyyy hh:mm`; literal text escaped, separators as they are); ISO-like without one.
 */
export function excelDateFormats(format: DateFormat | undefined): WorkbookDateFormats {
  if (format === undefined) return { date: 'yyyy-mm-dd', dateTime: 'yyyy-mm-dd hh:mm:ss' };
  const excel = (text: string): string =>
    text
      .split(FORMAT_TOKENS)
      // Excel's tokens are ours in lower case (`mm`, minutes or month, by its place as ours is).
      .map((part, i) => (i % 2 === 1 ? part.toLowerCase() : part.replace(/[^-/:., ]/g, (c) => `\\${c}`)))
      .join('');
  return {
    date: excel(format.dateText),
    dateTime: format.dateTime === undefined ? `${excel(format.dateText)} hh:mm:ss` : excel(format.text),
  };
}
