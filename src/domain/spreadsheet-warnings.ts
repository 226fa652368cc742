/**
 * Values that look mangled by a spreadsheet or a legacy encoding (docs/input-formats.md, "Warnings"): warned
 * of, a spreadsheet's error value refused, a U+FEFF inside a value removed and reported. Pure.
 */
import { quotedValue, type Problem, type Validation } from './problem.js';
import { ErrorCode, isApiCode, WARNING_CODES } from './codes.js';
import { SECRET_FIELDS } from './field-names.js';
import type { UserField } from './user.js';
import type { CandidateField, ScheduleField } from './schedule.js';

/** A field of a record these warnings read: a misspelt name in the lists below fails to compile. */
type RecordField = UserField | CandidateField | ScheduleField;

/** A doubt about one field of a record; the run report carries them beside the item's errors. */
export interface FieldWarning {
  /** The field's path, as a Problem's (`PhoneNumber`, `Candidates[2].FirstName`, `Labels[1]`). */
  field: string;
  /** Which doubt it is (WARNING_CODES, codes.ts): what a --strict failure keeps as its code. */
  code: (typeof WARNING_CODES)[keyof typeof WARNING_CODES];
  message: string;
  /** As a Problem's: the row the value is on, where the item spans several (a sitting's candidates). */
  line?: number;
}

interface Findings {
  warnings: FieldWarning[];
  /** Values that are a spreadsheet's error value: the record fails with them (reader problems). */
  problems: Problem[];
}

/** A spreadsheet's error values as Excel, LibreOffice (also `Err:502`) and Google Sheets show them. */
const SPREADSHEET_ERRORS: ReadonlySet<string> = new Set([
  '#NULL!',
  '#DIV/0!',
  '#VALUE!',
  '#REF!',
  '#NAME?',
  '#NUM!',
  '#N/A',
  '#GETTING_DATA',
  '#SPILL!',
  '#CALC!',
  '#FIELD!',
  '#BLOCKED!',
  '#CONNECT!',
  '#BUSY!',
  '#UNKNOWN!',
  '#EXTERNAL!',
  '#PYTHON!',
  '#ERROR!',
]);
const LIBREOFFICE_ERROR = /^Err:\d{3}$/;

/** True for a spreadsheet's error value (`#N/A`, `#VALUE!`, `Err:502`), compared trimmed. */
function isSpreadsheetError(value: string): boolean {
  const c = value.charCodeAt(0);
  if (c !== 0x23 && c !== 0x45 && c !== 0x20) return false;
  const text = value.trim();
  return SPREADSHEET_ERRORS.has(text) || LIBREOFFICE_ERROR.test(text);
}

const BOM = '\uFEFF';
const REPLACEMENT = '\uFFFD';
/** `1.23457E+18`, `1,2E+18`, `9E17`: a spreadsheet's display of a long number in exponent form. */
const EXPONENT_FORM = /^[+-]?\d(?:[.,]\d+)?E[+-]?\d+$/i;
/** `??`, or a `?` between two letters (`Jos? Garc?a`): characters a legacy encoding could not hold. */
let lostCharacters: RegExp | undefined;
/** Made on first use, as text-rules.ts's isUnseen: `\p{L}` is resolved when the RegExp is made. */
const hasLostCharacters = (text: string): boolean => (lostCharacters ??= /\?\?|\p{L}\?\p{L}/u).test(text);
/** UTF-8 read as Windows-1252 or Latin-1, as docs/input-formats.md's "Warnings" says (`Zoë` as `ZoÃ«`). */
const DOUBLE_ENCODED = new RegExp(
  '[\u00C2\u00C3][\u0080-\u00BF\u0152\u0153\u0160\u0161\u0178\u017D\u017E\u0192' +
    '\u02C6\u02DC\u2013\u2014\u2018-\u201E\u2020-\u2022\u2026\u2030\u2039\u203A' +
    '\u20AC\u2122]|\u00E2\u20AC',
);

/** Fields holding an identifier or a number written as text, where exponent form means digits were lost. */
function isDigitsField(name: string): boolean {
  return /(?:Id|Ids)$/.test(name) || name.includes('Phone') || DIGITS_FIELDS.has(name);
}
const DIGITS_FIELDS: ReadonlySet<string> = new Set<RecordField>([
  'PIN',
  'PostalCode',
  'RegistrationNumber',
  'UserName',
  'SynchronizationKey',
]);

/** Fields holding names and places, where a `?` is almost never what was typed. */
const NAME_FIELDS: ReadonlySet<string> = new Set<RecordField>([
  'FirstName',
  'LastName',
  'UserName',
  'GroupName',
  'ScheduleGroupName',
  'Company',
  'City',
  'State',
  'AddressLine1',
  'AddressLine2',
  'PostalAddress',
]);

/** Which checks a field's values get: decided once per field name, not once per value. */
const SECRET = 1;
const NAME = 2;
const DIGITS = 4;

/** Field name -> its checks; bounded, since a JSON input may bring any number of key names. */
const CHECKS_OF = new Map<string, number>();
const MAX_REMEMBERED_NAMES = 1024;

function checksOf(name: string): number {
  let checks = CHECKS_OF.get(name);
  if (checks === undefined) {
    checks =
      (SECRET_FIELDS.has(name) ? SECRET : 0) | (NAME_FIELDS.has(name) ? NAME : 0) | (isDigitsField(name) ? DIGITS : 0);
    if (CHECKS_OF.size < MAX_REMEMBERED_NAMES) CHECKS_OF.set(name, checks);
  }
  return checks;
}

/** A digit or a sign first, as EXPONENT_FORM needs: most ids fail this before the pattern runs. */
function startsLikeNumber(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d;
}

/** A value's path: `base`, or `base[index]` for an entry of a list (built only when a warning names it). */
function pathOf(base: string, index: number): string {
  return index < 0 ? base : `${base}[${index}]`;
}

function checkString(value: string, base: string, index: number, name: string, found: Findings): string {
  const checks = checksOf(name);
  const secret = (checks & SECRET) !== 0;
  const warnings = found.warnings;
  if (isSpreadsheetError(value)) {
    found.problems.push({
      field: pathOf(base, index),
      code: ErrorCode.CellNotReadable,
      message: `${name} holds ${secret ? "a spreadsheet's error value" : `the spreadsheet error ${value.trim()}`} (a formula that failed, or a cell examctl could not read): type the value`,
    });
    return value;
  }
  let out = value;
  if (value.includes(BOM)) {
    out = value.split(BOM).join('');
    warnings.push({
      field: pathOf(base, index),
      code: WARNING_CODES.InvisibleCharacterRemoved,
      message: `${name} contained an invisible U+FEFF character (left by a copy or a file join), removed${secret ? '' : `: sent as ${quotedValue(out)}`}`,
    });
  }
  if (secret) return out;
  if (out.includes(REPLACEMENT)) {
    warnings.push({
      field: pathOf(base, index),
      code: WARNING_CODES.CharacterLostInEncoding,
      message: `${name} contains U+FFFD (\uFFFD), the mark of a character lost in a text-encoding conversion: check ${quotedValue(out)} and save the file as UTF-8 or .xlsx`,
    });
  } else if ((checks & NAME) !== 0 && out.includes('?') && hasLostCharacters(out)) {
    warnings.push({
      field: pathOf(base, index),
      code: WARNING_CODES.QuestionMarkForLetter,
      message: `${name} ${quotedValue(out)} has ? where letters are expected: the file may have been saved in a legacy encoding (Windows-1252); save it as UTF-8 or .xlsx`,
    });
  } else if ((checks & NAME) !== 0 && DOUBLE_ENCODED.test(out)) {
    warnings.push({
      field: pathOf(base, index),
      code: WARNING_CODES.DoubleEncodedLetters,
      message: `${name} ${quotedValue(out)} looks like UTF-8 read as Windows-1252 (Ã© for é): open the file as UTF-8 and save it again, or use .xlsx`,
    });
  }
  if ((checks & DIGITS) !== 0 && startsLikeNumber(out) && EXPONENT_FORM.test(out)) {
    warnings.push({
      field: pathOf(base, index),
      code: WARNING_CODES.NumberInExponentForm,
      message: `${name} ${quotedValue(out)} looks like a long number a spreadsheet showed in exponent form (its digits are lost): format the column as text and type the value again`,
    });
  }
  return out;
}

function checkValue(value: unknown, base: string, index: number, name: string, found: Findings): unknown {
  if (typeof value === 'string') return checkString(value, base, index, name, found);
  if (Array.isArray(value)) {
    const path = pathOf(base, index);
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const entry: unknown = value[i];
      const checked = checkValue(entry, path, i, name, found);
      if (checked !== entry) (out ??= value.slice())[i] = checked;
    }
    return out ?? value;
  }
  if (typeof value === 'object' && value !== null)
    return checkObject(value as Record<string, unknown>, `${pathOf(base, index)}.`, found);
  return value;
}

function checkObject(fields: Record<string, unknown>, prefix: string, found: Findings): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    const checked = checkValue(value, prefix === '' ? key : prefix + key, -1, key, found);
    if (checked !== value) (out ??= { ...fields })[key] = checked;
  }
  return out ?? fields;
}

/**
 * The warnings for one record's fields (nested ones included), its spreadsheet errors, and its fields with U+FEFF
 * removed (the same object when nothing changed).
 */
export function checkSpreadsheetValues(fields: Record<string, unknown>) {
  const found: Findings = { warnings: [], problems: [] };
  return { fields: checkObject(fields, '', found), ...found };
}

/**
 * A record's validation with the problems found before it first (cells its reader or coercion could not
 * read): such a record fails, and its validation says nothing more of those fields.
 */
export function withReaderProblems<T>(
  readerProblems: readonly Problem[] | undefined,
  validation: Validation<T>,
): Validation<T> {
  if (readerProblems === undefined || readerProblems.length === 0) return validation;
  // The reader left the field out, or coercion left it unconverted: "is required" or "must be" for
  // it would only repeat that problem, also where validation names it inside a request
  // (`Schedule.StartDateTime` of a sittings row) or inside the field (`Hierarchies[0].ExternalId`).
  // An earlier problem with an API code (a whole-number cell's 249) speaks only for its code: 250 on the same value
  // still applies.
  const unreadAt = (field: string, { line, code }: Problem): boolean =>
    readerProblems.some(
      (unread) =>
        !(isApiCode(unread.code) && code !== null && code !== unread.code) &&
        (field === unread.field ||
          field.startsWith(`${unread.field}[`) ||
          field.startsWith(`${unread.field}.`) ||
          (field.endsWith(`.${unread.field}`) &&
            (line === undefined || unread.line === undefined || line === unread.line))),
    );
  // A SpecialNeeds the reader could not read is not "false": 250 (an adjustment without it) would
  // blame the adjustment for the unread cell (docs/domain-rules.md: 250 is not said when SpecialNeeds is invalid).
  const repeats = (problem: Problem): boolean =>
    unreadAt(problem.field, problem) ||
    (problem.code === ErrorCode.AdjustmentWithoutSpecialNeeds &&
      unreadAt(problem.field.replace(/ReasonableAdjustmentPercentage$/, 'SpecialNeeds'), problem));
  const rest = validation.ok ? [] : validation.problems.filter((p) => !repeats(p));
  return { ok: false, problems: [...readerProblems, ...rest] };
}
