/**
 * The one redaction gate for server-supplied text, `Redactor.text` (`Redactor.deep` for a parsed
 * answer); its sinks, forms and price: docs/security.md, "One redaction gate". Pure: no fs, no network.
 */
import { FREE_TEXT_FIELDS } from '../domain/review-session.js';
import type { ReviewSession } from '../domain/types.js';

const REDACTED = '[redacted]';

/** Shorter prefixes than this are left alone: they would match ordinary words and ids. */
const MIN_PREFIX = 8;
/** Secrets shorter than this are matched whole only (a 4-digit PIN); shorter ones as whole tokens only. */
const MIN_SECRET = 4;

export interface Redactor {
  text(value: string): string;
  /**
   * False when no string parsed from this JSON text can hold a secret: without a backslash
   * every parsed string is a piece of the text, so a secret's 8-character head absent from the
   * text is absent from all of them (the bulk path's answers skip the walk).
   */
  mayHold(jsonText: string): boolean;
  /** A parsed JSON value with every string (member names too) redacted; walked without recursion. */
  deep<T>(value: T): T;
}

/** Field names whose values are a record's own secrets. */
const SECRET_FIELD = /^(password|pin)$/i;
/**
 * A secret field's key as JSON.stringify writes it: a key of letters goes out as it is
 * (`"Password":`), so the JSON text of a payload with a secret field at any depth holds this. A
 * string value holding those words has its quotes escaped (`\"pin\":`), so it cannot match; a
 * match without a secret field would only cost the walk.
 */
const SECRET_KEY_IN_JSON = /"(?:password|pin)":/i;

/** Every secret field value of a request payload, at any depth, without recursion. */
export function secretsOfPayload(payload: unknown): string[] {
  const secrets: string[] = [];
  const stack: unknown[] = [payload];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    // for...in, not Object.entries: no pair arrays per request.
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      const inner = record[key];
      if (typeof inner === 'string') {
        // The length first: the regular expression only for a key that could be one.
        if ((key.length === 8 || key.length === 3) && SECRET_FIELD.test(key)) secrets.push(inner);
      } else if (inner !== null && typeof inner === 'object') stack.push(inner);
    }
  }
  return secrets;
}

/** A-Z to a-z and nothing else: the same length, so positions in the folded text are positions in the text. */
function foldAscii(text: string): string {
  if (!/[A-Z]/.test(text)) return text;
  // toLowerCase folds beyond ASCII too (and may change the length): only for an ASCII text.
  return /[^\u0000-\u007f]/.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text.toLowerCase();
}

/** The UTF-16 unit at `at`, A-Z folded to a-z. */
function foldedAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** A mark on a character: redacted; or redacted and part of a base64 form (then widened to the whole encoding). */
const MARK = 1;
const MARK_BASE64 = 2;

/** The forms the matcher looks for, by their text: whether it is base64 text (if any form so written is). */
type Forms = Map<string, boolean>;

function addForm(forms: Forms, text: string, base64 = false): void {
  forms.set(text, forms.get(text) === true || base64);
}

const HASH_BASE = 31;
/** HASH_BASE ** (MIN_PREFIX - 1), modulo 2^32: what the character leaving the window weighs. */
const HASH_TOP = (() => {
  let power = 1;
  for (let i = 1; i < MIN_PREFIX; i += 1) power = Math.imul(power, HASH_BASE);
  return power;
})();

/**
 * Finds the secrets in a text (which runs: docs/security.md, "One redaction gate") folded on the fly:
 * a window is read from its end back, and a character no piece holds moves the next window past it,
 * so only runs of 8+ characters of the secrets' alphabet are hashed (an answer's punctuation and
 * short words are stepped over), a window costing a few integer operations and a bit test, no string.
 * Nothing is indexed by string: a record's own matcher is built per request, a rolling hash.
 */
class SecretMatcher {
  /** The long forms, folded, each with its mark. */
  private readonly forms: { folded: string; mark: number }[] = [];
  private readonly bits: Uint8Array;
  private readonly mask: number;
  /** The folded ASCII characters some piece holds (1), and whether a piece holds one beyond ASCII. */
  private readonly ascii = new Uint8Array(128);
  private wide = false;
  private readonly shortOnes: { folded: string; mark: number; token: boolean }[] = [];

  /** `bitsPerPiece`: a window that starts no piece passes the bit test 1 time in that many. */
  constructor(long: Forms, whole: Forms, bitsPerPiece = 64, tokens: Forms = new Map()) {
    for (const [text, base64] of whole)
      this.shortOnes.push({ folded: foldAscii(text), mark: base64 ? MARK_BASE64 : MARK, token: false });
    for (const [text] of tokens) this.shortOnes.push({ folded: foldAscii(text), mark: MARK, token: true });
    let pieceCount = 0;
    for (const [text, base64] of long) {
      const folded = foldAscii(text);
      if (folded.length < MIN_PREFIX) continue;
      this.forms.push({ folded, mark: base64 ? MARK_BASE64 : MARK });
      pieceCount += folded.length - MIN_PREFIX + 1;
      for (let i = 0; i < folded.length; i += 1) {
        const c = folded.charCodeAt(i);
        if (c < 128) this.ascii[c] = 1;
        else this.wide = true;
      }
    }
    let size = 64;
    while (size < pieceCount * bitsPerPiece) size *= 2;
    this.bits = new Uint8Array(size / 8);
    this.mask = size - 1;
    for (const { folded } of this.forms) {
      let hash = 0;
      for (let end = 0; end < folded.length; end += 1) {
        if (end >= MIN_PREFIX) hash = (hash - Math.imul(folded.charCodeAt(end - MIN_PREFIX), HASH_TOP)) | 0;
        hash = (Math.imul(hash, HASH_BASE) + folded.charCodeAt(end)) | 0;
        if (end < MIN_PREFIX - 1) continue;
        const bit = hash & this.mask;
        this.bits[bit >>> 3]! |= 1 << (bit & 7);
      }
    }
  }

  get empty(): boolean {
    return this.forms.length === 0 && this.shortOnes.length === 0;
  }

  /** `marks` (allocated at the first hit) with every occurrence marked; undefined when there is none. */
  mark(text: string, marks: Uint8Array | undefined): Uint8Array | undefined {
    let out = marks;
    this.find(text, (at, length, mark) => {
      out ??= new Uint8Array(text.length);
      for (let i = at; i < at + length; i += 1) out[i]! |= mark;
      return false;
    });
    return out;
  }

  /** The marks of the forms holding this folded 8-character piece; 0 when none does. */
  private markOf(piece: string): number {
    let mark = 0;
    for (const form of this.forms) if (form.folded.includes(piece)) mark |= form.mark;
    return mark;
  }

  /** Calls `hit` for each occurrence until it returns true; true when it did. */
  find(text: string, hit: (at: number, length: number, mark: number) => boolean): boolean {
    if (this.shortOnes.length > 0) {
      const folded = foldAscii(text);
      for (const short of this.shortOnes) {
        for (
          let at = folded.indexOf(short.folded);
          at >= 0;
          at = folded.indexOf(short.folded, at + (short.token ? 1 : short.folded.length))
        ) {
          if (short.token && (isWordAt(folded, at - 1) || isWordAt(folded, at + short.folded.length))) continue;
          if (hit(at, short.folded.length, short.mark)) return true;
        }
      }
    }
    if (this.forms.length === 0) return false;
    const { bits, mask, ascii, wide } = this;
    const length = text.length;
    // `end`: the last character of the next window that could be whole (8 characters of the secrets' alphabet).
    let end = MIN_PREFIX - 1;
    while (end < length) {
      // From the window's end back: a character outside the alphabet moves the next window past it, unhashed.
      let out = end;
      while (out > end - MIN_PREFIX) {
        const c = foldedAt(text, out);
        if (c < 128 ? ascii[c] === 0 : !wide) break;
        out -= 1;
      }
      if (out > end - MIN_PREFIX) {
        end = out + MIN_PREFIX;
        continue;
      }
      let hash = 0;
      for (let at = end + 1 - MIN_PREFIX; at <= end; at += 1)
        hash = (Math.imul(hash, HASH_BASE) + foldedAt(text, at)) | 0;
      // Each window of the run, rolled on one character at a time until the run ends.
      for (;;) {
        const bit = hash & mask;
        if ((bits[bit >>> 3]! & (1 << (bit & 7))) !== 0) {
          const at = end + 1 - MIN_PREFIX;
          const mark = this.markOf(foldAscii(text.slice(at, end + 1)));
          if (mark !== 0 && hit(at, MIN_PREFIX, mark)) return true;
        }
        end += 1;
        if (end >= length) break;
        const c = foldedAt(text, end);
        if (c < 128 ? ascii[c] === 0 : !wide) {
          end += MIN_PREFIX;
          break;
        }
        hash = (hash - Math.imul(foldedAt(text, end - MIN_PREFIX), HASH_TOP)) | 0;
        hash = (Math.imul(hash, HASH_BASE) + c) | 0;
      }
    }
    return false;
  }
}

/** Whether the character at `at` is a letter or a digit: a short secret's neighbours must not be. */
function isWordAt(text: string, at: number): boolean {
  if (at < 0 || at >= text.length) return false;
  const c = text.charCodeAt(at);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return /[\p{L}\p{N}\p{M}]/u.test(String.fromCodePoint(text.codePointAt(at) ?? c)) || (c >= 0xdc00 && c <= 0xdfff);
}

/** A character of either base64 alphabet (standard or url-safe). */
const BASE64_CHAR = /[\w+/-]/;

/**
 * A base64 form's match widened to the whole encoding around it: the characters at its edges
 * (the last quantum, `NDU=`, and the first, which hold bits of the secret as well as of its
 * neighbours) and the padding after it. Otherwise `[redacted]NDU=` would show the secret's last
 * two characters.
 */
function widenBase64(text: string, marks: Uint8Array): void {
  for (let i = 0; i < text.length; i += 1) {
    if ((marks[i]! & MARK_BASE64) === 0) continue;
    let from = i;
    while (from > 0 && BASE64_CHAR.test(text[from - 1]!)) from -= 1;
    let to = i;
    while (to + 1 < text.length && (marks[to + 1] !== 0 || BASE64_CHAR.test(text[to + 1]!))) to += 1;
    while (to + 1 < text.length && text.charCodeAt(to + 1) === 61) to += 1; // '=' padding
    marks.fill(MARK, from, to + 1);
    i = to;
  }
}

/** The text with every marked run replaced by one REDACTED. */
function redactMarked(text: string, marks: Uint8Array): string {
  let out = '';
  let at = 0;
  while (at < text.length) {
    const redacted = marks[at] !== 0;
    let end = at;
    while (end < text.length && (marks[end] !== 0) === redacted) end += 1;
    out += redacted ? REDACTED : text.slice(at, end);
    at = end;
  }
  return out;
}

/**
 * A secret and its re-encoded forms (docs/security.md, "One redaction gate"); base64 after 0, 1
 * and 2 bytes, less the edge characters its neighbours change (`widenBase64` takes them back).
 */
function addEncodedForms(forms: Forms, secret: string): void {
  addForm(forms, secret);
  const percent = encodeURIComponent(secret);
  addForm(forms, percent);
  addForm(forms, percent.replace(/%20/g, '+'));
  const bytes = Buffer.from(secret, 'utf8');
  // Every byte as %XX (the matcher ignores letter case, so %4a and %4A alike), and hex.
  addForm(forms, everyBytePercent(bytes));
  addForm(forms, bytes.toString('hex'));
  for (let before = 0; before < 3; before += 1) {
    const all = before + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
    // Whole 3-byte groups only, less the characters holding bits of the bytes before.
    const piece = encoded.slice(Math.ceil((8 * before) / 6), Math.floor(all / 3) * 4);
    addForm(forms, piece, true);
    addForm(forms, piece.replace(/\+/g, '-').replace(/\//g, '_'), true);
  }
}

/** Every byte percent-encoded, letters and digits too (`%37%33%39%31`). */
function everyBytePercent(bytes: Buffer): string {
  return bytes.toString('hex').toUpperCase().replace(/../g, '%$&');
}

/**
 * A short secret (4..7 characters, a PIN) and its encoded forms, each matched whole: base64 and
 * base64url at byte alignment 0, with and without `=` padding, and every byte percent-encoded.
 * At least 6 characters each: specific enough, unlike its pieces.
 */
function addShortEncodedForms(forms: Forms, secret: string): void {
  addForm(forms, secret);
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const url = base64.replace(/\+/g, '-').replace(/\//g, '_');
  for (const text of [base64, base64.replace(/=+$/, ''), url, url.replace(/=+$/, '')]) addForm(forms, text, true);
  addForm(forms, everyBytePercent(bytes));
}

/**
 * What the matcher looks for: the secrets of 8+ characters and their encoded forms, by pieces;
 * a short secret (a PIN) and its short forms whole only (its pieces would be too short to tell).
 */
function secretForms(secrets: readonly string[], bitsPerPiece?: number): SecretMatcher {
  const long: Forms = new Map();
  const whole: Forms = new Map();
  const tokens: Forms = new Map();
  for (const secret of secrets) {
    if (secret.length >= MIN_PREFIX) addEncodedForms(long, secret);
    else if (secret.length >= MIN_SECRET) addShortEncodedForms(whole, secret);
    // A tiny one as written and percent-encoded, each a whole token.
    else if (secret.length > 0) for (const text of [secret, encodeURIComponent(secret)]) addForm(tokens, text);
  }
  return new SecretMatcher(long, whole, bitsPerPiece, tokens);
}

/** The references and escapes a secret may be echoed behind: docs/security.md, "One redaction gate". */
const REFERENCE =
  /&(?:#[xX](0*[0-9a-fA-F]{1,8})|#(0*[0-9]{1,10})|([A-Za-z][A-Za-z0-9]{1,31}));?|\\(?:u([0-9a-fA-F]{4})|(["/bfnrt]|\\+))/g;
/** Only a text holding `&#`, `&` and a letter, or a JSON escape is decoded: a plain answer pays two `indexOf`s. */
const MAY_HOLD_REFERENCE = /&[#A-Za-z]|\\[u"\\/bfnrt]/;
const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  plus: '+',
  sol: '/',
  bsol: '\\',
  equals: '=',
  num: '#',
  percnt: '%',
  lowbar: '_',
  underbar: '_',
  hyphen: '-',
  dash: '-',
  minus: '-',
  period: '.',
  colon: ':',
  semi: ';',
  excl: '!',
  quest: '?',
  commat: '@',
  tilde: '~',
  dollar: '$',
  ast: '*',
  midast: '*',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  lbrack: '[',
  rsqb: ']',
  rbrack: ']',
  lcub: '{',
  lbrace: '{',
  rcub: '}',
  rbrace: '}',
  verbar: '|',
  vert: '|',
  verticalline: '|',
  comma: ',',
  grave: '`',
  diacriticalgrave: '`',
  hat: '^',
  nbsp: ' ',
  tab: '\t',
  newline: '\n',
};

/** What one reference or escape decodes to; undefined for a name that is none of `NAMED_REFERENCES`. */
function referenceChar(
  hex?: string,
  decimal?: string,
  name?: string,
  unit?: string,
  escape?: string,
): string | undefined {
  if (unit !== undefined) return String.fromCharCode(Number.parseInt(unit, 16));
  // A run of n backslashes as one match (n / 2, rounded up): 8 MiB of them cost one call a round, not millions.
  if (escape !== undefined) return JSON_ESCAPES[escape] ?? '\\'.repeat(Math.ceil((escape.length + 1) / 2));
  if (name !== undefined) return NAMED_REFERENCES[name.toLowerCase()];
  const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
}

/** One round of decoding: each reference as its character; undefined when nothing decoded. */
function decodeReferences(text: string): string | undefined {
  let decodedAny = false;
  const out = text.replace(
    REFERENCE,
    (reference: string, hex?: string, decimal?: string, name?: string, unit?: string, escape?: string) => {
      const char = referenceChar(hex, decimal, name, unit, escape);
      if (char === undefined) return reference;
      decodedAny = true;
      return char;
    },
  );
  return decodedAny ? out : undefined;
}

/**
 * The marks of `text`'s decoding carried back to `text`: a character kept is marked as it was, a
 * reference whole when any unit it decoded to is (so `Tk&#43;S3cr3t&#47;zz` goes whole).
 */
function marksBefore(text: string, decodedMarks: Uint8Array): Uint8Array {
  const marks = new Uint8Array(text.length);
  let at = 0;
  let to = 0;
  const keep = (end: number): void => {
    for (; at < end; at += 1, to += 1) marks[at] = decodedMarks[to]!;
  };
  for (const match of text.matchAll(REFERENCE)) {
    const char = referenceChar(match[1], match[2], match[3], match[4], match[5]);
    if (char === undefined) continue;
    keep(match.index);
    at = match.index + match[0].length;
    if (decodedMarks.subarray(to, (to += char.length)).some((mark) => mark !== 0)) marks.fill(MARK, match.index, at);
  }
  keep(text.length);
  return marks;
}

/** Rounds of decoding: `&amp;#43;` is `&#43;` once decoded, `+` twice; each round shortens the text. */
const DECODING_ROUNDS = 4;

/**
 * `marks` (allocated at the first hit) with every reference or character marked whose decoding,
 * in any of the rounds, holds a secret or one of its forms; the text around them stays.
 */
function markDecoded(
  value: string,
  matchers: readonly SecretMatcher[],
  marks: Uint8Array | undefined,
): Uint8Array | undefined {
  let out = marks;
  const rounds = [value];
  for (
    let decoded = decodeReferences(value);
    decoded !== undefined;
    decoded =
      rounds.length <= DECODING_ROUNDS && MAY_HOLD_REFERENCE.test(decoded) ? decodeReferences(decoded) : undefined
  ) {
    let found: Uint8Array | undefined;
    for (const matcher of matchers) found = matcher.mark(decoded, found);
    if (found !== undefined) {
      widenBase64(decoded, found);
      for (let round = rounds.length - 1; round >= 0; round -= 1) found = marksBefore(rounds[round]!, found);
      out ??= new Uint8Array(value.length);
      for (let i = 0; i < value.length; i += 1) out[i]! |= found[i]!;
    }
    rounds.push(decoded);
  }
  return out;
}

/** The matchers behind each gate: a record's gate adds its own to the client's, never rebuilding them. */
const matchersOf = new WeakMap<Redactor, readonly SecretMatcher[]>();

function gateOf(matchers: readonly SecretMatcher[]): Redactor {
  const live = matchers.filter((matcher) => !matcher.empty);
  const text = (value: string): string => {
    let marks: Uint8Array | undefined;
    for (const matcher of live) marks = matcher.mark(value, marks);
    if ((value.includes('&') || value.includes('\\')) && MAY_HOLD_REFERENCE.test(value))
      marks = markDecoded(value, live, marks);
    if (marks === undefined) return value;
    widenBase64(value, marks);
    return redactMarked(value, marks);
  };
  const gate: Redactor = {
    text,
    mayHold(jsonText) {
      if (live.length === 0) return false;
      // A JSON escape can spell a secret in other characters: such an answer is always walked.
      if (jsonText.includes('\\')) return true;
      // So can an HTML character reference (`&#43;`, `&plus;`): such an answer is walked too.
      if (jsonText.includes('&') && MAY_HOLD_REFERENCE.test(jsonText)) return true;
      // Else: whether any piece of a secret occurs in it.
      return live.some((matcher) => matcher.find(jsonText, () => true));
    },
    deep<T>(value: T): T {
      return live.length === 0 ? value : redactDeep(value, text);
    },
  };
  matchersOf.set(gate, live);
  return gate;
}

/**
 * Bits of the run-long matcher's table per piece: built once, it is scanned against every
 * answer, where a false bit hit costs a look into every form (1 window in 1,024, not 1 in 64).
 */
const CLIENT_BITS_PER_PIECE = 1024;

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  // An empty one is no secret: secretForms skips it.
  const given = secrets.filter((secret) => secret !== undefined);
  return gateOf([secretForms(given, CLIENT_BITS_PER_PIECE)]);
}

/**
 * The gate for one request: the client's, plus a matcher for the record's own secrets when it has any.
 * `payloadJson`: the payload as JSON.stringify wrote it, when the caller has it.
 */
export function withRecordSecrets(base: Redactor, payload: unknown, payloadJson?: string): Redactor {
  // The text the client sends anyway: without a secret field's key in it, no walk (0.14 against 0.5 us).
  if (payloadJson !== undefined && !SECRET_KEY_IN_JSON.test(payloadJson)) return base;
  const own = secretsOfPayload(payload).filter((secret) => secret.length > 0);
  if (own.length === 0) return base;
  return gateOf([...(matchersOf.get(base) ?? []), recordMatcher(own)]);
}

/**
 * The matchers of the last records' own secrets, by those secrets: a bulk import often gives
 * every user the same initial password, whose forms (about 13 us a record) are then built once.
 * A memo of what the records themselves hold, bounded; the least recently used one goes first.
 */
const recordMatchers = new Map<string, SecretMatcher>();
const RECORD_MATCHERS_KEPT = 64;

function recordMatcher(own: readonly string[]): SecretMatcher {
  const key = own.length === 1 ? (own[0] as string) : own.join('\u0000');
  let matcher = recordMatchers.get(key);
  if (matcher === undefined) {
    matcher = secretForms(own);
    if (recordMatchers.size >= RECORD_MATCHERS_KEPT)
      recordMatchers.delete(recordMatchers.keys().next().value as string);
  } else recordMatchers.delete(key);
  recordMatchers.set(key, matcher);
  return matcher;
}

function redactDeep<T>(root: T, text: (value: string) => string): T {
  if (typeof root === 'string') return text(root) as T;
  if (root === null || typeof root !== 'object') return root;
  // Parsed JSON: fresh objects no one else holds, redacted in place.
  const stack: object[] = [root as object];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const item = node[i];
        if (typeof item === 'string') node[i] = text(item);
        else if (item !== null && typeof item === 'object') stack.push(item);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const item = node[key];
      const safeKey = text(key);
      const safeItem = typeof item === 'string' ? text(item) : item;
      if (safeKey !== key) delete node[key];
      // defineProperty, not assignment: a member named __proto__ stays a member.
      if (safeKey !== key || safeItem !== item)
        Object.defineProperty(node, safeKey, { value: safeItem, writable: true, enumerable: true, configurable: true });
      if (safeItem !== null && typeof safeItem === 'object') stack.push(safeItem);
    }
  }
  return root;
}

/** The gate without a client's secrets, made on first use: a run that shows no review session never builds it. */
let noSecrets: Redactor | undefined;

/** `withheld` (`sent` without its PINs), its free-text fields redacted where they quote them (docs/security.md). */
export function pinsRedacted(
  sent: ReviewSession,
  withheld: ReviewSession,
  redacted: { fields: number },
): ReviewSession {
  noSecrets ??= createRedactor([]);
  const gate = withRecordSecrets(noSecrets, sent);
  if (gate === noSecrets) return withheld;
  const freeText = <T extends Record<string, unknown>>(record: T): T => {
    const copy: Record<string, unknown> = { ...record };
    for (const key of FREE_TEXT_FIELDS) {
      const clean = gate.deep(Array.isArray(record[key]) ? [...record[key]] : record[key]);
      if (String(clean) === String(record[key])) continue;
      copy[key] = clean;
      redacted.fields += 1;
    }
    return copy as T;
  };
  return { ...freeText(withheld), Results: withheld.Results?.map(freeText) };
}
