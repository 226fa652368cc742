/** Turns a response body into the API's envelope, or into words for a message when it is not one. */
import type { Envelope } from '../domain/envelope.js';
import { ERROR_LIMITS, errorsOf } from './envelope-errors.js';
import { JsonScanner, scanJson } from '../system/json-scan.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * Reads a response body as an envelope, tolerating what real servers send: camelCase member
 * names, a missing Success (derived from the status and Errors), and unknown members (kept).
 * Undefined when the body is not a JSON object.
 */
export function readEnvelope<T>(text: string, status: number): Envelope<T> | undefined {
  // A test, not trim(): trim() copies every body it is given.
  if (!/\S/.test(text)) return undefined;
  // Deeper than any answer of the API: refused before parsing, since JSON.stringify (reports,
  // `review-session show`) overflows the stack on a few thousand levels. Only a long text can be deep.
  let parsed: unknown;
  try {
    if (text.length > ERRORS_CUT_FROM) text = withErrorListsCut(text);
    else if (text.length > 2 * MAX_ANSWER_DEPTH) scanJson(text, { depth: MAX_ANSWER_DEPTH });
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const body = parsed as Record<string, unknown>;
  if (!ENVELOPE_MEMBERS.some((name) => name in body)) return undefined;
  // The parse made a fresh object no one else holds: completed in place, not copied.
  if (!('Content' in body)) body.Content = 'content' in body ? body.content : null;
  if (!('Errors' in body)) body.Errors = 'errors' in body ? body.errors : null;
  // Success is true only as the boolean true ({"Success":"true"} is not: said as what came), never
  // at a 4xx (the status is the protocol's verdict); only an envelope without the member at all
  // has it derived from the status and Errors.
  const said = 'Success' in body ? body.Success : body.success;
  body.Success =
    said === undefined ? status >= 200 && status < 300 && errorsOf(body).length === 0 : said === true && status < 400;
  const type = said === null ? 'null' : typeof said === 'object' ? 'an object' : `a ${typeof said}`;
  let why =
    said === undefined || typeof said === 'boolean'
      ? undefined
      : `Success as ${type} (HTTP ${status}), not the boolean true`;
  if (said === true && status >= 400) {
    saidSuccess.add(body);
    why = `HTTP ${status} with Success: true; an answer with status ${status} is never a success`;
  }
  if (why !== undefined && errorsOf(body).length === 0)
    body.Errors = [{ Code: null, Message: `the service answered ${why}` }];
  return body as unknown as Envelope<T>;
}

/** An object with none of these members is no envelope. */
const ENVELOPE_MEMBERS = ['Content', 'Success', 'Errors', 'content', 'success', 'errors'];

/** The envelopes of a 4xx saying Success true (`readEnvelope`). */
export const saidSuccess = new WeakSet<object>();

/** Nesting levels an answer may have; the API's deepest answer has fewer than ten. */
const MAX_ANSWER_DEPTH = 256;

/** Longer answers have their error lists cut before parsing. */
const ERRORS_CUT_FROM = 64 * 1024;

/** The envelope's Errors and a user's GroupErrors cut past 100 entries (ERROR_LIMITS), a last counting the rest. */
function withErrorListsCut(text: string): string {
  const lists = new Map<string | number, [from: number, last: number, more: number]>();
  scanJson(
    text,
    { depth: MAX_ANSWER_DEPTH },
    {
      onKey: () => undefined, // the path then names each list
      onEntry: (path, _line, at) => {
        const [key, index] = path.slice(-2);
        const errors =
          path.length === 2 ? key === 'Errors' || key === 'errors' : path.length === 3 && key === 'GroupErrors';
        if (!errors || typeof index !== 'number' || index < ERROR_LIMITS.problems) return;
        lists.set(key!, [lists.get(key!)?.[0] ?? at, at, index + 1 - ERROR_LIMITS.problems]);
      },
    },
  );
  let cut = '';
  let from = 0;
  for (const [first, last, more] of lists.values()) {
    const scanner = new JsonScanner({ depth: MAX_ANSWER_DEPTH });
    cut += `${text.slice(from, first)}"… and ${more} more"`;
    from = scanner.skipSpace(text, scanner.scanValue(text, last, true));
  }
  return cut + text.slice(from);
}

/** The envelope a failed call is reported with when the service sent none. */
export function failureEnvelope<T>(message: string): Envelope<T> {
  return { Content: null, Success: false, Errors: [{ Code: null, Message: message }] };
}

/** How much of a non-envelope body is looked at for a message: a bounded prefix, whatever the body's size. */
const SNIPPET_SCAN_CHARS = 64 * 1024;
const SNIPPET_CHARS = 200;

/**
 * A body (an HTML error page, a proxy's text) flattened to at most 200 characters for a message.
 * One pass over a bounded prefix (a megabyte of `<` costs what 64 KiB costs); `redact` runs on the
 * raw prefix and again on the flattened text (stripping tags may join a secret's pieces), and
 * always before the cut, so the cut can never leave a secret's head behind.
 */
export function bodySnippet(text: string, redact: (text: string) => string = (value) => value): string {
  const prefix = redact(text.length > SNIPPET_SCAN_CHARS ? text.slice(0, SNIPPET_SCAN_CHARS) : text);
  const flat = redact(stripTags(prefix).replace(/\s+/g, ' ').trim());
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}...` : flat;
}

/** `<...>` replaced by a space, in one pass: an unclosed `<` (no `>` after it) is kept as text. */
function stripTags(text: string): string {
  let out = '';
  let from = 0;
  for (let open = text.indexOf('<'); open >= 0; open = text.indexOf('<', from)) {
    const close = text.indexOf('>', open + 1);
    if (close < 0) break; // no `>` anywhere after: the rest has no tag
    out += `${text.slice(from, open)} `;
    from = close + 1;
  }
  return out + text.slice(from);
}

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The media type of a response, without parameters; "untyped" when the header is missing. */
export function contentTypeOf(headers: ResponseHeaders): string {
  return (headerValue(headers, 'content-type') ?? 'untyped').split(';')[0] ?? 'untyped';
}

/**
 * `an undecodable body (Content-Encoding: gzip, 1234 bytes)` when the body is no text to quote:
 * a Content-Encoding examctl does not decode, or bytes that are not UTF-8 (decoded as U+FFFD);
 * undefined when it is text. Quoting it would put binary garbage in a message.
 */
export function undecodableBody(
  headers: ResponseHeaders,
  text: string,
  bytes: number,
  redact: (text: string) => string,
): string | undefined {
  const encoding = headerValue(headers, 'content-encoding')?.trim() ?? '';
  const coded = encoding !== '' && encoding.toLowerCase() !== 'identity';
  if (!coded && !text.includes('\uFFFD')) return undefined;
  return `an undecodable body (${coded ? `Content-Encoding: ${redact(encoding).slice(0, 40)}` : 'not UTF-8'}, ${bytes} bytes)`;
}
