/**
 * Pure value checks shared by every entity's rules; the code and message of a failure are the entity
 * tables', so one check can serve several fields (the e-mail check for users and candidates).
 */
import ipaddr from 'ipaddr.js';
import { isCalendarDate } from './date-time.js';
import { NAME_FORBIDDEN_CLASS } from './forbidden-characters.js';

/** "Alphanumeric and dashes" (docs/interpretations.md, "Field rules"). */
export const ALNUM_DASH = /^[A-Za-z0-9-]+$/;
/** "Alphanumeric" (ProctoringServiceTemplateExternalId): letters of either case and digits, no dashes. */
export const ALNUM = /^[A-Za-z0-9]+$/;
/** Collection ExternalId (docs/domain-rules.md, "Where the API text and examctl differ"). */
export const LOWER_ALNUM = /^[a-z0-9]+$/;
/** User ExternalId: - _ a-z A-Z 0-9 @ (219). */
export const USER_EXTERNAL_ID = /^[-_a-zA-Z0-9@]+$/;
export const WHITESPACE = /\s/;
/** The e-mail check (docs/domain-rules.md, "Field decisions where the spec is open"), also the schema pattern. */
export const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#\$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const EMAIL_LOCAL_CHAR = /[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]/;
const EMAIL_DOMAIN_CHAR = /[a-zA-Z0-9.-]/;

/**
 * Characters a terminal shows as nothing or as something else: controls, format characters, every space but
 * the plain one, default-ignorables and combining marks (which draw over the quote before them).
 */
let unseen: RegExp | undefined;
/** Made on first use: a `\p{…}` class is resolved (ICU) when its RegExp is made, slowing every start. */
const isUnseen = (c: string): boolean => (unseen ??= /^[\p{C}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}]$/u).test(c);

/** A character as a message shows it: visible ones quoted, the invisible and format ones by code point. */
function shownCharacter(c: string): string {
  const code = c.codePointAt(0) as number;
  if (c === ' ') return 'a space';
  if (isUnseen(c)) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return JSON.stringify(c);
}

/** Why `s` is not an e-mail address EMAIL_PATTERN takes, naming the first offending character and its position. */
export function emailFault(s: string): string | undefined {
  if (EMAIL_PATTERN.test(s)) return undefined;
  const at = s.indexOf('@');
  if (at === -1) return 'it has no @ (expected name@domain.tld)';
  if (at === 0) return 'nothing before the @';
  const chars = Array.from(s);
  let position = 0;
  let seenAt = false;
  for (const c of chars) {
    position += 1;
    if (c === '@' && !seenAt) {
      seenAt = true;
      continue;
    }
    const allowed = seenAt ? EMAIL_DOMAIN_CHAR.test(c) : EMAIL_LOCAL_CHAR.test(c);
    if (!allowed) {
      const where = seenAt ? 'in the domain' : 'before the @';
      const hint =
        seenAt && c.codePointAt(0)! > 0x7f && !isUnseen(c) ? ' (write an international domain in its xn-- form)' : '';
      return `${shownCharacter(c)} at position ${position} is not allowed ${where}${hint}`;
    }
  }
  const domain = s.slice(at + 1);
  if (domain === '') return 'nothing after the @';
  const labels = domain.split('.');
  if (labels.length < 2) return `the domain "${domain}" has no dot (expected name@domain.tld)`;
  const empty = labels.findIndex((label) => label === '');
  if (empty !== -1)
    return `the domain "${domain}" has an empty label (${empty === 0 ? 'a leading' : empty === labels.length - 1 ? 'a trailing' : 'two'} dot${empty > 0 && empty < labels.length - 1 ? 's in a row' : ''})`;
  const dashed = labels.find((label) => label.startsWith('-') || label.endsWith('-'));
  if (dashed !== undefined) return `the domain label "${dashed}" ${dashed.startsWith('-') ? 'starts' : 'ends'} with -`;
  const long = labels.find((label) => label.length > 63);
  if (long !== undefined) return `a domain label is longer than 63 characters`;
  return 'expected name@domain.tld';
}
/** SynchronizationKey (231): a GUID, any case, optionally in braces; also its schema pattern. */
export const GUID_PATTERN =
  /^(?:\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
export const DATE_DASHED = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_COMPACT = /^(\d{4})(\d{2})(\d{2})$/;
const DIGITS = /^[0-9]+$/;

/**
 * Length in Unicode code points (docs/interpretations.md, "Field rules": string(N) counts characters, not bytes
 * or UTF-16 units). UTF-16 length is an upper bound, so the slow count runs only near the limit.
 */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function exceedsLength(s: string, max: number): boolean {
  return s.length > max && codePointLength(s) > max;
}

/** GUIDs compare without braces and ignoring case (a SynchronizationKey is one user's, 232). */
export function normaliseGuid(key: string): string {
  return key.replace(/^\{|\}$/g, '').toLowerCase();
}

/** A user's Photo (245; docs/domain-rules.md, "Field decisions where the spec is open"): a pattern, for the schema. */
export const HTTP_URL_PATTERN =
  /^[Hh][Tt][Tt][Pp][Ss]?:\/\/(?:[^\s/?#@]+@)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:[/?#]\S*)?$/;

const NAME_FORBIDDEN = new RegExp(`[${NAME_FORBIDDEN_CLASS}]`, 'u');

export function hasForbiddenNameCharacter(s: string): boolean {
  return NAME_FORBIDDEN.test(s);
}

/** DateOfBirth as written (246): YYYY-MM-DD or YYYYMMDD; whether it is a real date is checked apart. */
export const DATE_OF_BIRTH_PATTERN = /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{8})$/;

/** An RFC 3339 date-time with a zone; ranges and a real calendar day are checked apart. */
export const DATE_TIME_PATTERN =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$/;

/** DateOfBirth in YYYY-MM-DD or YYYYMMDD, a real calendar date (246): as YYYY-MM-DD, or null. */
export function normaliseDateOfBirth(s: string): string | null {
  const m = DATE_DASHED.exec(s) ?? DATE_COMPACT.exec(s);
  if (m === null) return null;
  const y = m[1] as string;
  const mo = m[2] as string;
  const d = m[3] as string;
  if (!isCalendarDate(Number(y), Number(mo), Number(d))) return null;
  return `${y}-${mo}-${d}`;
}

/** Adds minutes to a normalised UTC date-time and returns the same wire form. */
export function addMinutes(isoUtc: string, minutes: number): string {
  return new Date(Date.parse(isoUtc) + minutes * 60_000).toISOString();
}

type IpKind = 'ipv4' | 'ipv6';

function ipKind(s: string): IpKind | null {
  // Four decimal parts 0-255, without leading zeros.
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return 'ipv4';
  // Zone ids (fe80::1%eth0) name a local interface and mean nothing to a remote login check.
  if (s.includes(':') && !s.includes('%') && ipaddr.IPv6.isValid(s)) return 'ipv6';
  return null;
}

function canonicalAddress(s: string, kind: IpKind): string {
  return kind === 'ipv4' ? s : ipaddr.IPv6.parse(s).toNormalizedString();
}

/**
 * One AllowedIpAddresses entry (238): an IPv4/IPv6 address, a CIDR block, or a `first-last` range of one
 * family; its canonical form (so `::1` and `0::1` are duplicates, 239), or null when invalid.
 */
export function canonicalIpEntry(s: string): string | null {
  const slash = s.indexOf('/');
  if (slash >= 0) {
    const addr = s.slice(0, slash);
    const prefix = s.slice(slash + 1);
    const kind = ipKind(addr);
    if (kind === null || !DIGITS.test(prefix) || prefix.length > 3) return null;
    const bits = Number(prefix);
    if (bits > (kind === 'ipv4' ? 32 : 128)) return null;
    return `${canonicalAddress(addr, kind)}/${bits}`;
  }
  const dash = s.indexOf('-');
  if (dash >= 0) {
    const first = s.slice(0, dash).trim();
    const last = s.slice(dash + 1).trim();
    const kind = ipKind(first);
    if (kind === null || ipKind(last) !== kind) return null;
    const bytes = (address: string): Buffer => Buffer.from(ipaddr.parse(address).toByteArray());
    if (Buffer.compare(bytes(first), bytes(last)) > 0) return null;
    return `${canonicalAddress(first, kind)}-${canonicalAddress(last, kind)}`;
  }
  const kind = ipKind(s);
  return kind === null ? null : canonicalAddress(s, kind);
}
