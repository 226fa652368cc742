/**
 * Dates and times as an admin's export writes them, read by `--date-format` and `--timezone`
 * (docs/input-formats.md, "Dates, times and time zones": nothing is guessed). Pure: Intl (Node's
 * ICU) places a local time in its zone, no library (docs/architecture.md, "Written here, and why").
 */
import { quotedValue, type Problem } from './problem.js';
import { isCalendarDate, parseDateTime, utcDate } from './date-time.js';
import { ErrorCode } from './codes.js';
import { requestParts } from './field-rules.js';
import { DATE_DASHED, DATE_OF_BIRTH_PATTERN, normaliseDateOfBirth } from './text-rules.js';

export function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A wall-clock time with no zone. */
export interface WallClock {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

export function dateText(w: WallClock): string {
  return `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`;
}

export function dateTimeText(w: WallClock): string {
  return `${dateText(w)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** True when `timeZone` is a zone name Intl knows (an IANA name such as Europe/Paris, or UTC). */
export function isKnownTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '') return false;
  try {
    zoneFormat(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** `--timezone` and `--date-format` as given (a flag, a profile), each with where it came from for its refusal. */
export interface TimeSettings {
  timezone?: { text: string; origin: string } | undefined;
  dateFormat?: { text: string; origin: string } | undefined;
}

type TimeSettingsReading =
  | { ok: true; zone: string | undefined; format: DateFormat | undefined }
  | { ok: false; message: string };

/** The settings checked, the format first: an unreadable format or unknown zone is refused, naming its origin. */
export function readTimeSettings({ timezone, dateFormat }: TimeSettings): TimeSettingsReading {
  const parsed = dateFormat === undefined ? undefined : parseDateFormat(dateFormat.text);
  if (parsed?.ok === false)
    return { ok: false, message: `${dateFormat?.origin} ${dateFormat?.text}: ${parsed.message}` };
  if (timezone !== undefined && !isKnownTimeZone(timezone.text)) {
    return {
      ok: false,
      message: `${timezone.origin}: unknown time zone "${timezone.text}": give an IANA name such as Europe/Paris, America/New_York or UTC`,
    };
  }
  return { ok: true, zone: timezone?.text, format: parsed?.format };
}

/** A zone's offset at an instant in minutes (ICU's `GMT+05:30`, `GMT-00:44:30`), rounded as the clock's seconds are. */
function offsetMinutesAt(timeZone: string, epochMs: number): number {
  const m = /GMT([+-])(\d+):(\d+)(?::(\d+))?/.exec(zoneFormat(timeZone).format(epochMs));
  if (m === null) return 0;
  const seconds = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return Math.round((m[1] === '-' ? -seconds : seconds) / 60);
}

/**
 * An instant as a zone's clock shows it (daylight saving included), with the zone's offset then: the other way
 * from wallClockInZone.
 */
export function wallClockAt(epochMs: number, timeZone: string) {
  const offsetMinutes = offsetMinutesAt(timeZone, epochMs);
  const local = new Date(epochMs + offsetMinutes * 60_000);
  return { wall: utcWall(local), ms: local.getUTCMilliseconds(), offsetMinutes };
}

/** The wall clock of a Date's UTC fields (milliseconds left out). */
export function utcWall(date: Date): WallClock {
  return {
    y: date.getUTCFullYear(),
    mo: date.getUTCMonth() + 1,
    d: date.getUTCDate(),
    h: date.getUTCHours(),
    mi: date.getUTCMinutes(),
    s: date.getUTCSeconds(),
  };
}

/** `+01:00`, `-05:30`, `+00:00`: an offset in minutes as RFC 3339 writes it. */
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

type ZoneConversion = { ok: true; text: string } | { ok: false; reason: 'gap' | 'ambiguous' };

/** A wall-clock time in a zone as RFC 3339 with its offset then; one the clocks skip or pass twice is refused. */
export function wallClockInZone(w: WallClock, timeZone: string): ZoneConversion {
  const wall = utcDate(w.y, w.mo, w.d, w.h, w.mi, w.s).getTime();
  // The instant is wall - offset, for the offset in force at that instant: try the offsets in
  // force a day around it (a zone changes offset at most once in that span).
  const candidates = new Set([
    offsetMinutesAt(timeZone, wall - 86_400_000),
    offsetMinutesAt(timeZone, wall + 86_400_000),
  ]);
  const matches: number[] = [];
  for (const offset of candidates) {
    if (offsetMinutesAt(timeZone, wall - offset * 60_000) === offset) matches.push(offset);
  }
  if (matches.length === 0) return { ok: false, reason: 'gap' };
  if (matches.length > 1) return { ok: false, reason: 'ambiguous' };
  return { ok: true, text: `${dateTimeText(w)}${offsetText(matches[0] as number)}` };
}

/** Why a local time has no single instant, in words (`field` already names the value). */
export function zoneConversionMessage(what: string, reason: 'gap' | 'ambiguous', timeZone: string): string {
  return reason === 'gap'
    ? `${what} does not exist in ${timeZone} (the clocks skip it when daylight saving starts); write the time with its offset`
    : `${what} happens twice in ${timeZone} (the clocks go back); write the time with its offset`;
}

/** Each `--date-format` token and the wall clock's field it reads and writes, in an ISO text's order. */
const TOKEN_FIELDS = { YYYY: 'y', MM: 'mo', DD: 'd', HH: 'h', mm: 'mi', ss: 's' } as const;
type Token = keyof typeof TOKEN_FIELDS;
const TOKENS = Object.keys(TOKEN_FIELDS) as readonly Token[];
/** The tokens in a format's text, captured: `split` gives the text between them and each token by turns. */
export const FORMAT_TOKENS = new RegExp(`(${TOKENS.join('|')})`, 'g');
const TIME_TOKENS: ReadonlySet<Token> = new Set(['HH', 'mm', 'ss']);

type Part = { token: Token } | { literal: string };

/** A parsed `--date-format`: how a date (and, with time tokens, a date-time) is written. */
export interface DateFormat {
  readonly text: string;
  /** The date part alone (for a date of birth when the format also has a time). */
  readonly date: RegExp;
  readonly dateOrder: readonly Token[];
  readonly dateTime: RegExp | undefined;
  readonly dateTimeOrder: readonly Token[];
  /** The date part's text, e.g. `DD.MM.YYYY`. */
  readonly dateText: string;
}

type DateFormatParse = { ok: true; format: DateFormat } | { ok: false; message: string };

/** A number is 1 or 2 digits when a separator or the end follows it (`5.7.2000`), else exactly 2. */
function regexOf(parts: readonly Part[]): { source: string; order: Token[] } {
  let source = '';
  const order: Token[] = [];
  parts.forEach((part, i) => {
    if ('literal' in part) {
      // A run of blanks matches any run of blanks; every other character itself.
      for (const run of part.literal.match(/\s+|[^\s]/g) ?? [])
        source += run.trim() === '' ? '\\s+' : run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return;
    }
    order.push(part.token);
    const next = parts[i + 1];
    if (part.token === 'YYYY') source += '(\\d{4})';
    else source += next === undefined || 'literal' in next ? '(\\d{1,2})' : '(\\d{2})';
  });
  return { source, order };
}

/** The trailing offset a formatted date-time may carry: `Z`, `+01:00`, `+0100`. */
const OFFSET_TAIL = '\\s*(Z|z|[+-]\\d{2}:?\\d{2})?';
/** A time after a date-only format, in a date-time field: `14:00`, `14:00:30`, after a space or T. */
const TIME_TAIL = '(?:[Tt]|\\s+)(\\d{1,2}):(\\d{2})(?::(\\d{2}))?';

/**
 * Parses a `--date-format`: YYYY MM DD (once each), optionally HH mm (both) and ss, other characters as
 * written. An unknown token (`YY`, `hh`, `M`) is refused, never taken for a separator.
 */
export function parseDateFormat(text: string): DateFormatParse {
  const parts: Part[] = [];
  const seen = new Set<Token>();
  let at = 0;
  for (const [i, piece] of text.split(FORMAT_TOKENS).entries()) {
    if (i % 2 === 1) {
      const token = piece as Token;
      if (seen.has(token)) return { ok: false, message: `${token} appears twice in "${text}"` };
      seen.add(token);
      parts.push({ token });
    } else {
      // Separators up to a letter that starts no token: that is an unknown token, never a separator.
      const letter = piece.search(/[A-Za-z]/);
      if (/\d/.test(letter < 0 ? piece : piece.slice(0, letter)))
        return { ok: false, message: `"${text}" holds a digit; a format is tokens and separators only` };
      if (letter >= 0) {
        const run = /^[A-Za-z]+/.exec(text.slice(at + letter))?.[0];
        return {
          ok: false,
          message: `unknown token "${run}" in "${text}": use YYYY, MM, DD, HH, mm and ss with any separators, e.g. DD.MM.YYYY or DD.MM.YYYY HH:mm`,
        };
      }
      if (piece !== '') parts.push({ literal: piece });
    }
    at += piece.length;
  }
  for (const token of ['YYYY', 'MM', 'DD'] as const) {
    if (!seen.has(token))
      return { ok: false, message: `"${text}" has no ${token}: a date format needs YYYY, MM and DD` };
  }
  if (seen.has('HH') !== seen.has('mm') || (seen.has('ss') && !seen.has('HH'))) {
    return { ok: false, message: `"${text}": a time needs HH and mm (and ss only with them)` };
  }
  const firstTime = parts.findIndex((part) => 'token' in part && TIME_TOKENS.has(part.token));
  // The date part is what comes before the time: a date token after it would leave a date field no date to read.
  if (firstTime !== -1 && parts.slice(firstTime).some((part) => 'token' in part && !TIME_TOKENS.has(part.token)))
    return { ok: false, message: `"${text}": the time must follow the date` };
  const dateParts = firstTime === -1 ? parts.slice() : parts.slice(0, firstTime);
  while (dateParts.length > 0 && 'literal' in (dateParts.at(-1) as Part)) dateParts.pop();
  const dateOnly = regexOf(dateParts);
  const dateText = dateParts.map((part) => ('token' in part ? part.token : part.literal)).join('');
  // A format that reads an ISO date another way (YYYY-DD-MM) would make every ISO text ambiguous.
  if (/^YYYY-?DD-?MM$/.test(dateText))
    return { ok: false, message: `"${text}" would read ISO dates (YYYY-MM-DD) with day and month swapped` };
  const whole = firstTime === -1 ? undefined : regexOf(parts);
  return {
    ok: true,
    format: {
      text,
      date: new RegExp(`^${dateOnly.source}$`),
      dateOrder: dateOnly.order,
      dateTime: whole === undefined ? undefined : new RegExp(`^${whole.source}${OFFSET_TAIL}$`),
      dateTimeOrder: whole?.order ?? [],
      dateText,
    },
  };
}

type TextReading = { ok: true; value: string; zone?: string } | { ok: false; message: string };

/** A date or date-time as written, beside the API form it was read as; messages quote the text (written-times.ts). */
export interface WrittenTime {
  /** The field as a problem names it (`StartDateTime`, `Schedule.StartDateTime`). */
  field: string;
  text: string;
  /** The zone a time without an offset was placed in. */
  zone?: string;
  /** The API's form: a UTC instant, or a date YYYY-MM-DD. */
  value: string;
}

/** A text read into another form, as messages quote it (`written`: the file's or a flag's text). */
export function writtenTime(field: string, written: string, reading: { value: string; zone?: string }): WrittenTime {
  const time: WrittenTime = { field, text: written.trim(), value: reading.value };
  if (reading.zone !== undefined) time.zone = reading.zone;
  return time;
}

export interface LocalTimeOptions {
  format?: DateFormat | undefined;
  timeZone?: string | undefined;
}

/** ISO date and time with or without seconds and offset: `2027-01-25 14:00`, `2027-01-25T14:00:00+01:00`. */
const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|z|[+-]\d{2}:?\d{2})?$/;

function wallOf(order: readonly Token[], groups: readonly (string | undefined)[]): WallClock {
  const w: WallClock = { y: 0, mo: 0, d: 0, h: 0, mi: 0, s: 0 };
  order.forEach((token, i) => {
    w[TOKEN_FIELDS[token]] = Number(groups[i] ?? 0);
  });
  return w;
}

/** The format a non-ISO date looks like, for the hint (`15.07.2000`: DD.MM.YYYY), both orders where either fits. */
export function likelyDateFormat(text: string): string | undefined {
  const m = /^(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?:([Tt ]|\s+)(\d{1,2}):(\d{2})(:\d{2})?)?/.exec(text.trim());
  const time = (m: RegExpExecArray, at: number): string =>
    m[at + 1] === undefined ? '' : ` HH:mm${m[at + 4] === undefined ? '' : ':ss'}`;
  if (m !== null) {
    const sep = m[2] as string;
    const first = Number(m[1]);
    const second = Number(m[3]);
    const dm = `DD${sep}MM${sep}YYYY${time(m, 4)}`;
    const md = `MM${sep}DD${sep}YYYY${time(m, 4)}`;
    if (first > 12 || sep === '.') return dm;
    if (second > 12) return md;
    return `${dm} or ${md}`;
  }
  const y = /^(\d{4})([./])(\d{1,2})\2(\d{1,2})(?:([Tt ]|\s+)(\d{1,2}):(\d{2})(:\d{2})?)?/.exec(text.trim());
  if (y !== null) return `YYYY${y[2]}MM${y[2]}DD${time(y, 4)}`;
  if (/^\d{8}$/.test(text.trim())) return 'DDMMYYYY';
  return undefined;
}

function notReadMessage(field: string, text: string, kind: 'date' | 'date-time', options: LocalTimeOptions): string {
  const quoted = quotedValue(text);
  if (options.format !== undefined) {
    const shape =
      kind === 'date'
        ? options.format.dateText
        : options.format.dateTime === undefined
          ? `${options.format.dateText} HH:mm`
          : options.format.text;
    return `${field} ${quoted} is neither ${shape} (--date-format) nor ISO ${kind === 'date' ? 'YYYY-MM-DD' : 'YYYY-MM-DDTHH:mm:ss'}`;
  }
  const looks = likelyDateFormat(text);
  const iso = kind === 'date' ? 'YYYY-MM-DD' : 'RFC 3339 (2027-01-25T14:00:00+01:00)';
  if (looks === undefined)
    return `${field} ${quoted} is not an ISO date${kind === 'date' ? '' : '-time'}: write it ${iso}, or say how it is written with --date-format`;
  // The flag as it is typed: a format with a blank needs quotes.
  const first = looks.split(' or ')[0] as string;
  const flag = first.includes(' ') ? `"${first}"` : first;
  const give = looks.includes(' or ')
    ? `give --date-format with the one the export uses, e.g. --date-format ${flag}`
    : `give --date-format ${flag}`;
  return `${field} ${quoted} is not ISO ${iso}; it looks like ${looks}: ${give} (examctl never guesses a date's order)`;
}

function impossible(field: string, text: string): TextReading {
  return {
    ok: false,
    message: `${field} ${quotedValue(text)} is not a real date and time (check day, month, hour and minute)`,
  };
}

/** A calendar date as `YYYY-MM-DD`: ISO, or the `--date-format`'s date part, tried first when the text fits it. */
export function readDateText(field: string, text: string, options: LocalTimeOptions): TextReading {
  const t = text.trim();
  const format = options.format;
  if (format !== undefined) {
    const m = format.date.exec(t);
    if (m !== null) {
      const w = wallOf(format.dateOrder, m.slice(1));
      return isCalendarDate(w.y, w.mo, w.d)
        ? { ok: true, value: dateText(w) }
        : {
            ok: false,
            message: `${field} ${quotedValue(text)} is not a real date (read as ${format.dateText}: day ${w.d}, month ${w.mo})`,
          };
    }
  }
  const iso = normaliseDateOfBirth(t);
  if (iso !== null) return { ok: true, value: iso };
  // An ISO date with an impossible day is that, with or without --date-format (not "neither format").
  const dashed = DATE_DASHED.exec(t);
  if (dashed !== null)
    return {
      ok: false,
      message: `${field} ${quotedValue(text)} is not a real date (month ${Number(dashed[2])}, day ${Number(dashed[3])})`,
    };
  return { ok: false, message: notReadMessage(field, text, 'date', options) };
}

/** A wall time, or one with its offset, as the RFC 3339 text the date-time rule reads. */
function placed(
  field: string,
  text: string,
  w: WallClock,
  fraction: string | undefined,
  offset: string | undefined,
  options: LocalTimeOptions,
): TextReading {
  if (!isCalendarDate(w.y, w.mo, w.d) || w.h > 23 || w.mi > 59 || w.s > 59) return impossible(field, text);
  const frac = fraction === undefined ? '' : `.${fraction}`;
  if (offset !== undefined) {
    const zone =
      offset === 'z' || offset === 'Z'
        ? 'Z'
        : offset.includes(':')
          ? offset
          : `${offset.slice(0, 3)}:${offset.slice(3)}`;
    const parsed = parseDateTime(`${dateTimeText(w)}${frac}${zone}`);
    return parsed.ok ? { ok: true, value: parsed.iso } : impossible(field, text);
  }
  if (options.timeZone === undefined) {
    return {
      ok: false,
      message: `${field} ${quotedValue(text)} has no time zone: add Z or an offset such as +01:00, or give --timezone with the zone the file's times are in (e.g. Europe/Berlin)`,
    };
  }
  const converted = wallClockInZone(w, options.timeZone);
  if (!converted.ok)
    return {
      ok: false,
      message: zoneConversionMessage(`${field} ${quotedValue(text)}`, converted.reason, options.timeZone),
    };
  const parsed = parseDateTime(converted.text.replace(/([+-]\d{2}:\d{2})$/, `${frac}$1`));
  return parsed.ok ? { ok: true, value: parsed.iso, zone: options.timeZone } : impossible(field, text);
}

/**
 * A date-time as the API's UTC form: RFC 3339 with an offset as it is; ISO without an offset or the
 * `--date-format` (a date-only format may be followed by `HH:mm[:ss]`), an offset optional; a time
 * without an offset is placed in `--timezone`, and refused without one.
 */
export function readDateTimeText(field: string, text: string, options: LocalTimeOptions): TextReading {
  const t = text.trim();
  const format = options.format;
  if (format !== undefined) {
    if (format.dateTime !== undefined) {
      const m = format.dateTime.exec(t);
      if (m !== null) {
        const order = format.dateTimeOrder;
        return placed(
          field,
          text,
          wallOf(order, m.slice(1, order.length + 1)),
          undefined,
          m[order.length + 1],
          options,
        );
      }
    }
    const dateTime = new RegExp(`^${format.date.source.slice(1, -1)}${TIME_TAIL}${OFFSET_TAIL}$`).exec(t);
    if (dateTime !== null) {
      const n = format.dateOrder.length;
      const w = wallOf([...format.dateOrder, 'HH', 'mm', 'ss'], dateTime.slice(1, n + 4));
      return placed(field, text, w, undefined, dateTime[n + 4], options);
    }
  }
  const iso = ISO_LOCAL.exec(t);
  if (iso !== null) return placed(field, text, wallOf(TOKENS, iso.slice(1, 7)), iso[7], iso[8], options);
  return { ok: false, message: notReadMessage(field, text, 'date-time', options) };
}

/** A date-time typed by hand (`--start`, the Start prompt), read as a file's is: prompt and flag take the same. */
export function readTypedDateTime(field: string, text: string, options: LocalTimeOptions): TextReading {
  return parseDateTime(text).ok && options.format === undefined
    ? { ok: true, value: text.trim() }
    : readDateTimeText(field, text, options);
}

/** A wall clock by a `--date-format`'s tokens (a format without time: ` HH:mm[:ss]`), as readDateTimeText reads it. */
export function formattedWall(w: WallClock, format: DateFormat, withTime: boolean): string {
  const fill = (text: string): string =>
    text.replace(FORMAT_TOKENS, (token) => pad(w[TOKEN_FIELDS[token as Token]], token.length));
  if (!withTime) return fill(format.dateText);
  if (format.dateTime !== undefined) return fill(format.text);
  return `${fill(format.dateText)} ${fill(w.s === 0 ? 'HH:mm' : 'HH:mm:ss')}`;
}

/** An example start as the admin would type it (`25.01.2027 14:00` for DD.MM.YYYY), for a prompt. */
export function exampleDateTime(options: LocalTimeOptions): string {
  const example =
    options.format === undefined
      ? '2027-01-25 14:00'
      : formattedWall({ y: 2027, mo: 1, d: 25, h: 14, mi: 0, s: 0 }, options.format, true);
  return options.timeZone === undefined ? `${example}+01:00` : example;
}

/** Fields whose text is a calendar date, and fields whose text is an instant. */
export const DATE_FIELDS: ReadonlySet<string> = new Set(['DateOfBirth']);
export const DATE_TIME_FIELDS: ReadonlySet<string> = new Set(['StartDateTime', 'EndDateTime']);

const DATE_KEYS: readonly string[] = [...DATE_FIELDS, ...DATE_TIME_FIELDS];

/**
 * The date and date-time texts of one record read by `options` (a whole schedule request's Schedule and
 * Candidates too). A text that cannot be read is left out and named in `problems` (it fails its record
 * only); one read into another form goes into `written` as the file wrote it, for messages to quote.
 */
export function readRecordDates(
  fields: Record<string, unknown>,
  options: LocalTimeOptions,
  problems: Problem[],
  prefix = '',
  written?: WrittenTime[],
): Record<string, unknown> {
  if (prefix === '' && (Object.hasOwn(fields, 'Schedule') || Object.hasOwn(fields, 'Candidates')))
    return requestParts(fields, (part, at) => readRecordDates(part, options, problems, at, written));
  // Most records have no date field at all (a user without DateOfBirth): a few lookups, no key array.
  if (!DATE_KEYS.some((key) => Object.hasOwn(fields, key))) return fields;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value !== 'string' || value.trim() === '') continue;
    const isDate = DATE_FIELDS.has(key);
    if (!isDate && !DATE_TIME_FIELDS.has(key)) continue;
    // Without --date-format an API-form text (a date, or RFC 3339 with an offset) stays as written (the rule reads it).
    const apiForm = isDate ? DATE_OF_BIRTH_PATTERN.test(value) : parseDateTime(value).ok;
    if (apiForm && options.format === undefined) continue;
    // Without either flag, only a text that looks like a local date gets the hint; the rest is the rule's to refuse.
    if (options.format === undefined && options.timeZone === undefined && likelyDateFormat(value) === undefined)
      continue;
    const reading = isDate ? readDateText(key, value, options) : readDateTimeText(key, value, options);
    if (reading.ok) {
      if (reading.value !== value) {
        (out ??= { ...fields })[key] = reading.value;
        written?.push(writtenTime(prefix + key, value, reading));
      }
    } else {
      out ??= { ...fields };
      delete out[key];
      // A date of birth keeps its field's code (246), as the rule would have given it.
      problems.push({
        field: prefix + key,
        code: isDate ? ErrorCode.DateOfBirthInvalid : null,
        message: reading.message,
      });
    }
  }
  return out ?? fields;
}
