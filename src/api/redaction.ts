/**
 * The one redaction gate for server-supplied text (issue 22): every string a server sends, and
 * every library message about a request, passes `Redactor.text` (or `Redactor.deep` for a parsed
 * answer) before it reaches any sink (terminal, --json, --report, run journal, debug lines).
 *
 * What it removes: each secret in use (the token, a proxy's password, the record's own Password
 * or PIN) wherever it occurs, and every run of 8 or more characters that is a piece of one, in
 * any letter case: its head, its tail or its middle (a server that echoes a token cut short, split
 * over two messages, or upper-cased still shows nothing a guess could start from). A secret
 * shorter than 8 (a PIN) is removed whole only. Redaction always comes before any truncation.
 * A secret's encoded forms (base64, percent-encoding, every byte as %XX, hex, JSON escapes:
 * `encodedForms`) count as secrets too; a short one's base64 and %XX forms whole only.
 * The price: a message that happens to share 8 characters with a secret loses them too (a
 * Password "Password2026" takes the word "Password" out of that record's messages).
 * Pure: no fs, no network.
 */

export const REDACTED = '[redacted]';

/** Shorter prefixes than this are left alone: they would match ordinary words and ids. */
const MIN_PREFIX = 8;
/** Secrets shorter than this are matched whole only (a 4-digit PIN); shorter ones not at all. */
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

/** The secret field values of a request payload (any depth, without recursion, bounded). */
export function secretsOfPayload(payload: unknown): string[] {
  const secrets: string[] = [];
  const stack: unknown[] = [payload];
  let visited = 0;
  while (stack.length > 0 && visited < 10_000) {
    const value = stack.pop();
    visited += 1;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (SECRET_FIELD.test(key) && typeof inner === 'string') secrets.push(inner);
      else if (inner !== null && typeof inner === 'object') stack.push(inner);
    }
  }
  return secrets;
}

/** A-Z to a-z and nothing else: the same length, so positions in the folded text are positions in the text. */
function foldAscii(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text;
}

/**
 * Finds the secrets in a text: a secret of 8 or more characters by each of its 8-character pieces
 * (so any run of 8+ characters that occurs in the secret, whether its head, its tail or its middle,
 * and whether the server echoed it whole, split over two messages, or in another case); a shorter
 * one (a 4-digit PIN) whole only. Linear in the text: one set lookup per position.
 */
class SecretMatcher {
  private readonly pieces = new Set<string>();
  private readonly shortOnes: string[] = [];

  constructor(secrets: readonly string[], whole: readonly string[] = []) {
    for (const form of whole) this.shortOnes.push(foldAscii(form));
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET) continue;
      const folded = foldAscii(secret);
      if (secret.length < MIN_PREFIX) this.shortOnes.push(folded);
      else for (let at = 0; at + MIN_PREFIX <= folded.length; at += 1) this.pieces.add(folded.slice(at, at + MIN_PREFIX));
    }
  }

  get empty(): boolean {
    return this.pieces.size === 0 && this.shortOnes.length === 0;
  }

  /** Whether any piece of a secret occurs in `text`. */
  occursIn(text: string): boolean {
    const folded = foldAscii(text);
    for (const short of this.shortOnes) if (folded.includes(short)) return true;
    if (this.pieces.size === 0) return false;
    for (let at = 0; at + MIN_PREFIX <= folded.length; at += 1) if (this.pieces.has(folded.slice(at, at + MIN_PREFIX))) return true;
    return false;
  }

  redact(text: string): string {
    const folded = foldAscii(text);
    let marked: Uint8Array | undefined;
    const mark = (from: number, length: number): void => {
      marked ??= new Uint8Array(text.length);
      marked.fill(1, from, from + length);
    };
    if (this.pieces.size > 0) {
      for (let at = 0; at + MIN_PREFIX <= folded.length; at += 1) if (this.pieces.has(folded.slice(at, at + MIN_PREFIX))) mark(at, MIN_PREFIX);
    }
    for (const short of this.shortOnes) {
      for (let at = folded.indexOf(short); at >= 0; at = folded.indexOf(short, at + short.length)) mark(at, short.length);
    }
    if (marked === undefined) return text;
    const flags = marked;
    let out = '';
    let at = 0;
    while (at < text.length) {
      let end = at;
      while (end < text.length && flags[end] === flags[at]) end += 1;
      out += flags[at] === 1 ? REDACTED : text.slice(at, end);
      at = end;
    }
    return out;
  }
}

/**
 * A secret as a server may re-encode it: percent-encoded (`+` for a space too), JSON-escaped
 * (`/` as `\/` too), and base64, standard and url-safe, of the secret and of any larger string
 * holding it (`Basic`, `Bearer ` + token): the secret preceded by 0, 1 and 2 bytes, without the
 * characters at either edge that depend on its neighbours. Each form is then matched as a secret.
 */
export function encodedForms(secret: string): string[] {
  const forms = new Set<string>();
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%20/g, '+'));
  const escaped = JSON.stringify(secret).slice(1, -1);
  forms.add(escaped);
  forms.add(escaped.replace(/\//g, '\\/'));
  const bytes = Buffer.from(secret, 'utf8');
  // Every byte as %XX (the matcher ignores letter case, so %4a and %4A alike), and hex.
  forms.add(everyBytePercent(bytes));
  forms.add(bytes.toString('hex'));
  for (let before = 0; before < 3; before += 1) {
    const all = before + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
    // Whole 3-byte groups only, less the characters holding bits of the bytes before.
    const piece = encoded.slice(Math.ceil((8 * before) / 6), Math.floor(all / 3) * 4);
    forms.add(piece);
    forms.add(piece.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  forms.delete(secret);
  return [...forms].filter((form) => form.length >= MIN_PREFIX);
}

/** Every byte percent-encoded, letters and digits too (`%37%33%39%31`). */
function everyBytePercent(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes) out += `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;
  return out;
}

/**
 * A short secret's (4..7 characters, a PIN) encoded forms, each matched whole: base64 and
 * base64url at byte alignment 0, with and without `=` padding, and every byte percent-encoded.
 * At least 6 characters each: specific enough, unlike its pieces.
 */
function shortEncodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const url = base64.replace(/\+/g, '-').replace(/\//g, '_');
  return [base64, base64.replace(/=+$/, ''), url, url.replace(/=+$/, ''), everyBytePercent(bytes)];
}

/**
 * What the matcher looks for: the secrets of 8+ characters and their encoded forms, by pieces;
 * a short secret (a PIN) and its short forms whole only (its pieces would be too short to tell).
 */
function secretForms(secrets: readonly string[]): SecretMatcher {
  const long = secrets.filter((secret) => secret.length >= MIN_PREFIX);
  const short = secrets.filter((secret) => secret.length < MIN_PREFIX);
  return new SecretMatcher([...new Set([...long, ...long.flatMap(encodedForms)])], [...new Set([...short, ...short.flatMap(shortEncodedForms)])]);
}

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const matcher = secretForms(secrets.filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET));
  const text = (value: string): string => (matcher.empty ? value : matcher.redact(value));
  return {
    text,
    // A JSON escape can spell a secret in other characters: such an answer is always walked.
    mayHold: (jsonText) => !matcher.empty && (jsonText.includes('\\') || matcher.occursIn(jsonText)),
    deep<T>(value: T): T {
      if (matcher.empty) return value;
      return redactDeep(value, text);
    },
  };
}

/** The gate for one request: the client's gate when the record has no secret of its own, else one with them added. */
export function withRecordSecrets(base: Redactor, baseSecrets: readonly (string | undefined)[], payload: unknown): Redactor {
  const own = secretsOfPayload(payload).filter((secret) => secret.length >= MIN_SECRET);
  if (own.length === 0) return base;
  const ownMatcher = secretForms(own);
  // Built only when an answer may hold a secret: most answers of a bulk run are checked, never walked.
  let full: Redactor | undefined;
  const get = (): Redactor => (full ??= createRedactor([...baseSecrets, ...own]));
  return {
    text: (value) => get().text(value),
    deep: (value) => get().deep(value),
    mayHold: (jsonText) => base.mayHold(jsonText) || ownMatcher.occursIn(jsonText),
  };
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
      if (safeKey !== key || safeItem !== item) Object.defineProperty(node, safeKey, { value: safeItem, writable: true, enumerable: true, configurable: true });
      if (safeItem !== null && typeof safeItem === 'object') stack.push(safeItem);
    }
  }
  return root;
}
