/**
 * undici's connection pool without undici's index. The index loads every dispatcher, the mocks,
 * the caches and the web (fetch, cookies) layer, which in turn loads Node's own bundled undici:
 * about 130 ms of start-up (measured: `require('undici')` 0.17 s over an empty node, these three
 * modules 0.04 s) for a run that needs one Pool. The index's only addition to a Pool is
 * `Object.assign(Dispatcher.prototype, api)`; `request` below is that same function, called with
 * the pool as `this`. These are undici's internal paths, so package.json pins undici's version
 * exactly; the remote tests (test/remote/) exercise every one of them.
 */
import type { Dispatcher, Pool as PoolType, errors as ErrorsType } from 'undici';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import requestOnDispatcher from 'undici/lib/api/api-request.js';
import errorClasses from 'undici/lib/core/errors.js';

export type Pool = PoolType;
export const Pool: typeof PoolType = PoolClass;
export const undiciErrors: typeof ErrorsType = errorClasses;

/** `pool.request(options)` of undici's index. */
export function request(pool: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestOnDispatcher.call(pool, options);
}

/** A whole response: status, headers (names lower-cased, repeated ones as a list) and the body as text. */
export interface TextResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request whose answer is read whole, as `request` then `body.text()` would read it (a
 * UTF-8 BOM dropped), but without the response stream in between: undici hands the chunks to
 * this handler directly. The stream (a Readable per response, its buffering and the consume
 * machinery) cost more CPU per request than the rest of examctl's client together.
 */
export function requestText(pool: Dispatcher, options: Dispatcher.DispatchOptions, maxBytes = Number.POSITIVE_INFINITY): Promise<TextResponse> {
  return new Promise<TextResponse>((resolve, reject) => {
    let statusCode = 0;
    let headers: TextResponse['headers'] = {};
    let chunks: Buffer[] = [];
    let length = 0;
    let abort: ((reason?: Error) => void) | undefined;
    pool.dispatch(options, {
      onConnect(abortRequest) {
        abort = abortRequest;
      },
      onHeaders(status, rawHeaders) {
        // 1xx (100 Continue, 103 Early Hints) precede the real answer.
        if (status < 200) return true;
        statusCode = status;
        headers = headersOf(rawHeaders);
        return true;
      },
      onData(chunk) {
        length += chunk.length;
        if (length > maxBytes) {
          // A server that answers without end must not fill examctl's memory: the connection is dropped.
          chunks = [];
          abort?.(new ResponseTooLargeError(maxBytes));
          return false;
        }
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
        chunks = [];
        const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
        resolve({ statusCode, headers, text: body.toString('utf8', start) });
      },
      onError(error) {
        reject(error);
      },
    });
  });
}

/** The answer's body grew past the client's bound (no answer of the API comes near it). */
export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the response body is larger than ${maxBytes} bytes; no answer of the API is that large`);
    this.name = 'ResponseTooLargeError';
  }
}

/** Raw header pairs as undici's parseHeaders makes them; no prototype, so any name is just a name. */
function headersOf(raw: Buffer[]): TextResponse['headers'] {
  const headers: TextResponse['headers'] = Object.create(null) as TextResponse['headers'];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer).toString('latin1').toLowerCase();
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return headers;
}
