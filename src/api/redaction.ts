/**
 * The one redaction gate for server-supplied text (issue 22): every string a server sends, and
 * every library message about a request, passes `Redactor.text` (or `Redactor.deep` for a parsed
 * answer) before it reaches any sink (terminal, --json, --report, run journal, debug lines).
 *
 * What it removes: each secret in use (the token, a proxy's password, the record's own Password
 * or PIN) wherever it occurs, and every piece of 8 or more characters that begins like one of
 * them (a server that echoes a token cut short, or a message cut by examctl's own length limits,
 * still shows nothing a guess could start from). Redaction always comes before any truncation.
 * Pure: no fs, no network.
 */

export const REDACTED = '[redacted]';

/** Shorter prefixes than this are left alone: they would match ordinary words and ids. */
export const MIN_PREFIX = 8;
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

/** Replaces each secret, and each run of 8+ characters that is a prefix of one, by [redacted]. */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    if (secret.length < MIN_PREFIX) {
      result = result.split(secret).join(REDACTED);
      continue;
    }
    result = redactPrefixes(result, secret);
  }
  return result;
}

/** Linear in the text for one secret: each start of its first 8 characters, extended as far as it matches. */
function redactPrefixes(text: string, secret: string): string {
  const head = secret.slice(0, MIN_PREFIX);
  let at = text.indexOf(head);
  if (at < 0) return text;
  let out = '';
  let copied = 0;
  while (at >= 0) {
    let end = at + MIN_PREFIX;
    while (end < text.length && end - at < secret.length && text.charCodeAt(end) === secret.charCodeAt(end - at)) end += 1;
    out += text.slice(copied, at) + REDACTED;
    copied = end;
    at = text.indexOf(head, end);
  }
  return out + text.slice(copied);
}

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const kept = [...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET))]
    // Longest first: a secret that contains another is removed whole.
    .sort((a, b) => b.length - a.length);
  const text = (value: string): string => (kept.length === 0 ? value : redactText(value, kept));
  const heads = kept.map((secret) => secret.slice(0, MIN_PREFIX));
  return {
    text,
    mayHold: (jsonText) => kept.length > 0 && (jsonText.includes('\\') || heads.some((head) => jsonText.includes(head))),
    deep<T>(value: T): T {
      if (kept.length === 0) return value;
      return redactDeep(value, text);
    },
  };
}

/** The gate for one request: the client's gate when the record has no secret of its own, else one with them added. */
export function withRecordSecrets(base: Redactor, baseSecrets: readonly (string | undefined)[], payload: unknown): Redactor {
  const own = secretsOfPayload(payload).filter((secret) => secret.length >= MIN_SECRET);
  if (own.length === 0) return base;
  // Built only when an answer may hold a secret: most answers of a bulk run are checked, never walked.
  let full: Redactor | undefined;
  const get = (): Redactor => (full ??= createRedactor([...baseSecrets, ...own]));
  return {
    text: (value) => get().text(value),
    deep: (value) => get().deep(value),
    mayHold: (jsonText) => base.mayHold(jsonText) || own.some((secret) => jsonText.includes(secret.slice(0, MIN_PREFIX))),
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
