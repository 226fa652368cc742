/**
 * Rules that more than one request shares (users and candidates, schedule dates). Each lives
 * here once; the entity tables only choose the code a failure carries on their endpoint.
 */
import { ErrorCode, type ProblemCode, UNNUMBERED } from './codes.js';
import { quotedValue, type Problem } from './problem.js';
import { codeNote, integerRule, isUnset, type StringFormat } from './field-rules.js';
import { DATE_TIME_PATTERN, EMAIL_PATTERN, emailFault } from './text-rules.js';
import { parseDateTime } from './date-time.js';

const ADJUSTMENT_MIN = 0;
const ADJUSTMENT_MAX = 999;

/** ReasonableAdjustmentPercentage: an integer 0..999 (249). Its link to SpecialNeeds is checked by the record. */
export const reasonableAdjustmentRule = integerRule('ReasonableAdjustmentPercentage', {
  min: ADJUSTMENT_MIN,
  max: ADJUSTMENT_MAX,
  code: ErrorCode.AdjustmentPercentageInvalid,
  doc: `set (0 included) only when SpecialNeeds is true${codeNote(ErrorCode.AdjustmentWithoutSpecialNeeds)}.`,
  percent: true,
});

/**
 * The 250 rule for one record: the percentage set (0 included) while SpecialNeeds is not true; `specialNeeds`
 * 'invalid': SpecialNeeds was itself invalid, so 250 cannot be decided.
 */
export function checkAdjustmentNeedsSpecialNeeds(
  percentage: unknown,
  specialNeeds: boolean | undefined | 'invalid',
  path: string,
  problems: Problem[],
): void {
  if (isUnset(percentage) || specialNeeds === 'invalid' || specialNeeds === true) return;
  problems.push({
    field: path,
    code: ErrorCode.AdjustmentWithoutSpecialNeeds,
    message: 'ReasonableAdjustmentPercentage may be set only when SpecialNeeds is true',
  });
}

/** The e-mail format with the code the endpoint uses for it (209 for users, null for candidates). */
export function emailFormat(code: ProblemCode): StringFormat {
  return {
    normalise: (s) => (EMAIL_PATTERN.test(s) ? s : undefined),
    code,
    message: (s) => `Email is not a valid address: ${emailFault(s) ?? 'expected name@domain.tld'}`,
    doc: "an e-mail address as browsers check one (WHATWG HTML's valid e-mail address: letters, digits and .!#$%&'*+/=?^_`{|}~- before the @) with a dotted domain of letters, digits and - (no label starting or ending with -)",
    wire: (s) => s.regex(EMAIL_PATTERN),
  };
}

const DATE_TIME_EXAMPLE = '2026-03-01T09:00:00Z';

function dateTimeMessage(name: string, reason: 'format' | 'no-zone' | 'calendar'): string {
  switch (reason) {
    case 'no-zone':
      return `${name} has no time zone; add Z or an offset such as +01:00, e.g. ${DATE_TIME_EXAMPLE}`;
    case 'calendar':
      return `${name} is not a real date and time (check month, day, hour, minute, second and offset)`;
    default:
      return `${name} must be RFC 3339 with a zone, e.g. ${DATE_TIME_EXAMPLE}`;
  }
}

/** An RFC 3339 DateTime field, normalised to UTC `yyyy-mm-ddThh:mm:ss.sssZ`. */
export function dateTimeFormat(name: string): StringFormat {
  return {
    normalise(s) {
      const parsed = parseDateTime(s);
      return parsed.ok ? parsed.iso : undefined;
    },
    code: UNNUMBERED,
    // Only reached for a value normalise refused, so the second parse is on the failure path only.
    message(s) {
      const parsed = parseDateTime(s);
      return dateTimeMessage(`${name} ${quotedValue(s)}`, parsed.ok ? 'format' : parsed.reason);
    },
    doc:
      `an RFC 3339 date-time with a zone (Z, +hh:mm or -hh:mm; T or a space between date and time, letters in any case; ` +
      `a fraction of a second optional), e.g. ${DATE_TIME_EXAMPLE}; sent as UTC yyyy-mm-ddThh:mm:ss.sssZ. ` +
      'A real calendar day and time, no leap second (:60), and a UTC year of four digits are calendar rules the pattern does not say',
    wire: (s) => s.regex(DATE_TIME_PATTERN).meta({ format: 'date-time' }),
  };
}
