import type { ProblemCode } from './codes.js';
import { describedSecret, looksLikeCredential } from './known-secrets.js';

/**
 * One thing wrong with one record, in the run report and the engine's envelope: `field` is a path in the
 * API's names (`Candidates[3].Email`); `line` is set where one item spans several source lines.
 */
export interface Problem {
  field: string;
  code: ProblemCode;
  message: string;
  line?: number;
}

/** The result of validating one record: the wire-ready value, or every problem found. */
export type Validation<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** Characters of a value a message quotes: a longer one is cut, and its full length said. */
const QUOTED_VALUE_CHARS = 60;

/**
 * A value as every message quotes it, JSON-quoted and cut (docs/security.md, "A hostile file"), so a
 * message stays one line and a report of a 4 MB word in every row stays small. The one gate text
 * from a file passes into a message: one that holds a secret examctl knows or has a credential's
 * shape is described as `what` and its length, never shown (known-secrets.ts).
 */
export function quotedValue(value: unknown, what = 'a value'): string {
  // Another value (a number, a list) as its JSON text, cut the same way.
  let text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  if (value === Infinity || value === -Infinity) text = 'a number out of range';
  if (looksLikeCredential(text)) return describedSecret(text, what);
  if (text.length <= QUOTED_VALUE_CHARS) return typeof value === 'string' ? JSON.stringify(value) : text;
  // Never half of a surrogate pair: that would be quoted as an escape.
  const cut = QUOTED_VALUE_CHARS - 1 - (/[\uD800-\uDBFF]/.test(text[QUOTED_VALUE_CHARS - 2]!) ? 1 : 0);
  const head = `${text.slice(0, cut)}…`;
  return `${typeof value === 'string' ? JSON.stringify(head) : head} (${text.length.toLocaleString('en-US')} characters)`;
}

/** A URL fit to print or keep: without its user info, query and fragment, where a secret can hide. */
export function redactUrl(text: string): string {
  // Not a URL: everything up to its last `@` (a password may hold `/`, `?` or `#`), and any query.
  if (!URL.canParse(text)) return text.replace(/\/\/[^]*@/, '//').replace(/[?#][^]*$/, '');
  const url = new URL(text);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/$/, '');
}

export function problem(field: string, code: ProblemCode, message: string): Problem {
  return { field, code, message };
}
