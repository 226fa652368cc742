/**
 * What one spreadsheet cell means as an examctl value (docs/input-formats.md, ".xlsx"): no XML
 * here, so every cell rule is testable without a workbook.
 */

import {
  DATE_FIELDS,
  DATE_TIME_FIELDS,
  dateText,
  dateTimeText,
  pad,
  utcWall,
  wallClockInZone,
  zoneConversionMessage,
} from '../domain/local-time.js';
import { isCalendarDate, utcDate } from '../domain/date-time.js';
import { WARNING_CODES } from '../domain/codes.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import { wholeNumberAsShown } from '../formats/digit-format.js';

/** A cell's stored value, as the sheet reader (sheet-rows.ts) hands it over. */
export type SheetValue =
  | null
  | undefined
  | string
  | number
  | boolean
  /** A `t="d"` cell: its ISO 8601 text as stored. */
  | { isoDate: string }
  | { formula: string; result?: unknown }
  | { error: string };

/**
 * A cell's text (with a doubt: a warning's code and words; a date-time cell in `--timezone` also says its wall time
 * as shown), or why it cannot be used and `shown`, a report's text for it (docs/input-formats.md, "Cells examctl
 * cannot read").
 */
export type CellReading =
  | { text: string; warning?: Pick<FieldWarning, 'code' | 'message'>; wall?: { text: string; zone: string } }
  | { problem: string; shown?: string };

/** Above this an IEEE double no longer holds every integer: the digits are not the ones typed. */
const LARGEST_EXACT = Number.MAX_SAFE_INTEGER;
/** Excel keeps 15 significant digits of a number: a 16-digit number cell may have lost its last ones. */
const EXCEL_DIGITS = 1e15;

interface CellContext {
  /** The API field the column maps to (undefined: an ignored column, or the header). */
  field: string | undefined;
  /** IANA zone for date-time cells in StartDateTime/EndDateTime (`--timezone`). */
  timeZone?: string;
  /** The workbook counts days from 1904 (old Mac Excel) instead of 1900. */
  date1904?: boolean;
}

/**
 * Plain decimal text of a finite number, never exponent form: integers exactly; fractions in
 * the shortest form that reads back as the same double (what the spreadsheet stored).
 */
export function plainNumber(value: number): string {
  if (Number.isInteger(value)) return Math.abs(value) < 1e21 ? value.toFixed(0) : BigInt(value).toString();
  const shortest = String(value);
  const e = shortest.indexOf('e');
  if (e === -1) return shortest;
  // Only tiny fractions (< 1e-6) reach here: move the point by hand.
  const exponent = Number(shortest.slice(e + 1));
  const negative = shortest.startsWith('-');
  const digits = shortest.slice(negative ? 1 : 0, e).replace('.', '');
  const pointAt = 1 + exponent;
  const body =
    pointAt <= 0 ? `0.${'0'.repeat(-pointAt)}${digits}` : `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return `${negative ? '-' : ''}${body}`;
}

/** A number format's own tokens: no quoted text, escaped characters (`\\d`, `_d`, `*d`), brackets or `General`. */
function formatTokens(numFmt: string): string {
  return numFmt
    .replace(/"[^"]*"/g, '')
    .replace(/[\\_*]./g, '')
    .replace(/\[[^\]]*]/g, '')
    .replace(/General/gi, '');
}

/** An elapsed-time token (`[h]`, `[mm]`, `[ss]`) outside quoted text. */
function hasElapsedToken(numFmt: string): boolean {
  return /\[(h+|m+|s+)]/i.test(numFmt.replace(/"[^"]*"/g, ''));
}

/** A number format that shows a time of day (`hh:mm`, `[h]:mm:ss`): hour or second tokens (AM/PM and A/P hold none). */
function showsTime(numFmt: string | undefined): boolean {
  return numFmt !== undefined && (hasElapsedToken(numFmt) || /[hs]/i.test(formatTokens(numFmt)));
}

const dateFormats = new Map<string, boolean>();

/** True when a number format shows a date or time: a y m d h s or b token, or [h] [m] [s], among its own tokens. */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (numFmt === undefined || numFmt === '') return false;
  let known = dateFormats.get(numFmt);
  if (known === undefined) {
    known = hasElapsedToken(numFmt) || /[ymdhsb]/i.test(formatTokens(numFmt));
    if (dateFormats.size < 1000) dateFormats.set(numFmt, known);
  }
  return known;
}

/** `dateOnly`: a date and no time (a whole day under a format without one), which no date-time field takes. */
function dateCell(date: Date, context: CellContext, dateOnly = false): CellReading {
  if (!Number.isFinite(date.getTime())) return { problem: 'the date cell holds no valid date', shown: '#VALUE!' };
  // Serial numbers carry float noise (09:10 may be 09:09:59.9996): round to the second.
  const w = utcWall(new Date(Math.round(date.getTime() / 1000) * 1000));
  const field = context.field;
  const midnight = w.h === 0 && w.mi === 0 && w.s === 0;
  if (field !== undefined && DATE_FIELDS.has(field)) {
    if (!midnight)
      return {
        problem: `${field} is a date cell with a time of day (${dateTimeText(w)}); give the date only`,
        shown: dateTimeText(w),
      };
    return { text: dateText(w) };
  }
  if (field !== undefined && DATE_TIME_FIELDS.has(field)) {
    // As the CSV text 2027-01-20 is refused: midnight is not a time anybody typed.
    if (dateOnly)
      return {
        problem: `${field} is a date cell (${dateText(w)}) without a time; give the date and time`,
        shown: dateText(w),
      };
    const zone = context.timeZone;
    if (zone === undefined) {
      return {
        problem:
          `${field} is a date-time cell (${dateTimeText(w)}), which has no time zone: format the column as text and write the zone ` +
          `(${dateTimeText(w)}Z or ${dateTimeText(w)}+01:00), or give --timezone with the zone the sheet's times are in (e.g. Europe/Paris)`,
        shown: dateTimeText(w),
      };
    }
    const converted = wallClockInZone(w, zone);
    if (!converted.ok)
      return {
        problem: `${zoneConversionMessage(`${field} ${dateTimeText(w)}`, converted.reason, zone)} as text`,
        shown: dateTimeText(w),
      };
    return { text: converted.text, wall: { text: dateTimeText(w), zone } };
  }
  const text = midnight ? dateText(w) : dateTimeText(w);
  // A date where none is expected is often a value the spreadsheet took for one (1-2 -> 2 January).
  return field === undefined
    ? { text }
    : {
        text,
        warning: {
          code: WARNING_CODES.DateCellInTextField,
          message: `${field} was a date cell, read as ${text}; if it is not meant as a date, format the column as text and type it again`,
        },
      };
}

/**
 * A time cell (a serial below 1 under a time format): `14:30`, `:ss` when its seconds are not 0, for a text
 * field or a map file's template; a date or date-time field cannot take a time of day alone.
 */
function timeCell(fraction: number, context: CellContext): CellReading {
  const seconds = Math.round(fraction * 86_400) % 86_400;
  const text = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}${seconds % 60 === 0 ? '' : `:${pad(seconds % 60)}`}`;
  const field = context.field;
  if (field !== undefined && (DATE_FIELDS.has(field) || DATE_TIME_FIELDS.has(field))) {
    return {
      problem: `${field} is a time cell (${text}) without a date; give the date${DATE_TIME_FIELDS.has(field) ? ' and time' : ''}`,
      shown: text,
    };
  }
  return { text };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A `t="d"` cell (ISO 8601 text): without an offset read as a date cell is; with one, a date-time field
 * takes the text as written, elsewhere its wall-clock part is read.
 */
function isoDateCell(iso: string, context: CellContext): CellReading {
  const match = ISO_DATE.exec(iso);
  if (match === null)
    return {
      problem: `the date cell holds "${iso}", which is not an ISO 8601 date; format the column as text and type the value`,
      shown: iso,
    };
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const [year, month, day, hour, minute, second] = [
    Number(y),
    Number(mo),
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
  ];
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59)
    return { problem: `the date cell holds "${iso}", which is no calendar date; type the value again`, shown: iso };
  if (zone !== undefined && context.field !== undefined && DATE_TIME_FIELDS.has(context.field)) return { text: iso };
  const ms = fraction === undefined ? 0 : Math.round(Number(`0.${fraction}`) * 1000);
  return dateCell(utcDate(year, month, day, hour, minute, second, ms), context, h === undefined);
}

/** Days from 1899-12-30 (the 1900 system's day 0 as Excel counts from day 61) to 1970-01-01. */
const EPOCH_1900 = 25569;
/** The 1904 system's day 0 (1904-01-01) is this many days after the 1900 system's. */
const OFFSET_1904 = 1462;

/**
 * The date a serial number shows. The 1900 system counts a 29 February 1900 that never was (serial 60, for
 * Lotus 1-2-3): serials 1-59 are a day later than counting from 1899-12-30 gives, 60 has no date (undefined).
 */
export function serialDate(serial: number, date1904: boolean): Date | undefined {
  let days = serial - EPOCH_1900;
  if (date1904) days += OFFSET_1904;
  else if (serial >= 60 && serial < 61) return undefined;
  else if (serial >= 1 && serial < 60) days += 1;
  return new Date(Math.round(days * 86_400_000));
}

function numberCell(value: number, numFmt: string | undefined, context: CellContext): CellReading {
  if (!Number.isFinite(value)) return { problem: 'the cell holds no valid number (an error value?)', shown: '#NUM!' };
  const field = context.field ?? 'the cell';
  if (Math.abs(value) > LARGEST_EXACT) {
    return {
      problem:
        `${field} is a number cell too large to hold its digits exactly (${plainNumber(value)}): ` +
        'format the column as text and type the value again (the spreadsheet already changed its last digits)',
      // Its digits are already not the ones typed: given back as the error a spreadsheet shows for an unusable number.
      shown: '#NUM!',
    };
  }
  if (isDateFormat(numFmt)) {
    // Below 1 in a format of a time alone (`hh:mm`, `h:mm AM/PM`, `[h]:mm:ss`: no year or day token): a time of
    // day (14:30 is 0.604...), shown as a time.
    if (value >= 0 && value < 1 && showsTime(numFmt) && !/[ydb]/i.test(formatTokens(numFmt ?? '')))
      return timeCell(value, context);
    // A formula's date result arrives as its serial number: read it as the date it shows.
    const date = serialDate(value, context.date1904 === true);
    if (date === undefined) {
      const what = context.field === undefined ? 'the cell is the date' : `${field} is the date cell`;
      return {
        problem: `${what} 1900-02-29 (serial 60), a day that did not exist (Excel keeps it for Lotus 1-2-3); type the date again`,
        shown: '1900-02-29',
      };
    }
    return dateCell(date, context, Number.isInteger(value) && !showsTime(numFmt));
  }
  // A percent-formatted number (a `%` among its format's own tokens) shows its value times 100 with a sign
  // (0.25 as 25%): read as shown.
  if (numFmt?.includes('%') && formatTokens(numFmt).includes('%'))
    return { text: `${plainNumber(Number((value * 100).toPrecision(15)))}%` };
  // A whole number under a format of digits and literals (`00000`, `"C"000000`): the text shown, leading zeros too.
  const text = wholeNumberAsShown(value, numFmt) ?? plainNumber(value);
  if (Number.isInteger(value) && Math.abs(value) >= EXCEL_DIGITS && context.field !== undefined) {
    return {
      text,
      warning: {
        code: WARNING_CODES.NumberCellPastFifteenDigits,
        message: `${field} is a number cell with 16 or more digits (${text}); spreadsheets keep only 15, so the last ones may have changed: format the column as text`,
      },
    };
  }
  return { text };
}

/**
 * One cell as text (trimmed later, as CSV cells are) or why it cannot be used; `numFmt` is its number format.
 * Formulas give their saved result; error values and formulas never calculated are refused.
 */
export function readCell(value: SheetValue, numFmt: string | undefined, context: CellContext): CellReading {
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'number') return numberCell(value, numFmt, context);
  if (typeof value === 'boolean') return { text: value ? 'true' : 'false' };
  if ('error' in value)
    return {
      problem: `the cell holds the error ${value.error}; fix it in the spreadsheet or type the value`,
      shown: value.error,
    };
  if ('isoDate' in value) return isoDateCell(value.isoDate, context);
  const result = value.result;
  if (result === undefined || result === null) {
    return {
      problem:
        'the cell is a formula with no saved result (the program that wrote the file did not calculate it): ' +
        'open and save the file in Excel or LibreOffice, or type the value',
      shown: '#N/A',
    };
  }
  // LibreOffice saves a typed TRUE or FALSE as the formula TRUE() or FALSE(), whose saved 1 or 0 arrives as a number.
  const formula = value.formula.trim().toUpperCase();
  if ((formula === 'TRUE()' || formula === 'FALSE()') && typeof result === 'number')
    return { text: result !== 0 ? 'true' : 'false' };
  // A formula that ends in an error saves its error code, which arrives as NaN.
  if (typeof result === 'number' && Number.isNaN(result))
    return {
      problem: 'the cell is a formula whose result is an error; fix it in the spreadsheet or type the value',
      shown: '#NUM!',
    };
  if (typeof result === 'object' && 'error' in result)
    return {
      problem: `the cell is a formula whose result is the error ${String(result.error)}; fix it in the spreadsheet or type the value`,
      shown: String(result.error),
    };
  return readCell(result as SheetValue, numFmt, context);
}
