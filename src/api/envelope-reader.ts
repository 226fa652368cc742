/** Turns a response body into the API's envelope, or into words for a message when it is not one. */
import type { Envelope } from '../domain/envelope.js';
import { errorsOf } from './envelope-errors.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/**
 * Reads a response body as an envelope, tolerating what real servers send: camelCase member
 * names, a missing Success (derived from the status and Errors), and unknown members (kept).
 * Undefined when the body is not a JSON object.
 */
export function readEnvelope<T>(text: string, status: number): Envelope<T> | undefined {
  // A test, not trim(): trim() copies every body it is given.
  if (!/\S/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const body = parsed as Record<string, unknown>;
  if (!('Content' in body) && !('Success' in body) && !('Errors' in body) && !('content' in body) && !('success' in body) && !('errors' in body)) {
    return undefined;
  }
  // The parse made a fresh object no one else holds: completed in place, not copied.
  const envelope = body;
  if (!('Content' in envelope)) envelope.Content = 'content' in body ? body.content : null;
  if (!('Errors' in envelope)) envelope.Errors = 'errors' in body ? body.errors : null;
  if (typeof envelope.Success !== 'boolean') {
    envelope.Success =
      typeof body.success === 'boolean' ? body.success : status >= 200 && status < 300 && errorsOf(envelope).length === 0;
  }
  return envelope as unknown as Envelope<T>;
}

/** The envelope a failed call is reported with when the service sent none. */
export function failureEnvelope<T>(message: string): Envelope<T> {
  return { Content: null, Success: false, Errors: [{ Code: null, Message: message }] };
}

/** A body (an HTML error page, a proxy's text) flattened to at most 200 characters for a message. */
export function bodySnippet(text: string): string {
  const flat = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The media type of a response, without parameters; "untyped" when the header is missing. */
export function contentTypeOf(headers: ResponseHeaders): string {
  return (headerValue(headers, 'content-type') ?? 'untyped').split(';')[0] ?? 'untyped';
}
