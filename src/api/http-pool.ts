/**
 * examctl's use of undici: its public API only, the handler hooks undici 7 and 8 both have. One place
 * owns what an attempt may cost: whole-attempt deadline, per-answer cut, a run's shared byte budget.
 */
import { StringDecoder } from 'node:string_decoder';
import * as tls from 'node:tls';
import { Pool, ProxyAgent, errors, type Dispatcher } from 'undici';
import { systemErrorCode } from '../system/system-error-words.js';
import { shownProxy } from './proxy-env.js';
import { formatBytes, formatMilliseconds } from '../formats/number-format.js';
import { headerValue, type ResponseHeaders } from './envelope-reader.js';

export const undiciErrors = errors;

export interface DispatcherOptions {
  connections: number;
  connectTimeout: number;
  headersTimeout: number;
  bodyTimeout: number;
  /** The proxy to go through (`proxyFor`), credentials in its URL; undefined: direct. */
  proxy?: string | undefined;
}

/** A keep-alive pool to `origin`, or a proxy agent tunnelling (CONNECT) to it through `proxy`. */
export function openDispatcher(origin: string, options: DispatcherOptions): Dispatcher {
  const { proxy, ...poolOptions } = options;
  // Always a CONNECT tunnel, http targets too (undici 8 would send those as absolute-form
  // requests, which a CONNECT-only proxy refuses, and which would show the proxy the token).
  if (proxy !== undefined) {
    const variable = origin.startsWith('https:') ? 'HTTPS_PROXY' : 'HTTP_PROXY';
    return new ProxyAgent({
      uri: proxy,
      proxyTunnel: true,
      ...poolOptions,
      requestTls: verified(origin),
      proxyTls: verified(proxy),
      clientFactory: (url, opts) => tunnelClient(url, opts, shownProxy(proxy), variable),
    });
  }
  return new Pool(origin, { ...poolOptions, connect: verified(origin) });
}

let trust: tls.ConnectionOptions | undefined;

/**
 * Checked whatever NODE_TLS_REJECT_UNAUTHORIZED says; bundled and NODE_EXTRA_CA_CERTS CAs only
 * (docs/security.md): one context, made at the first https URL. Node 20 has no CA lists.
 */
function verified(url: string): tls.ConnectionOptions {
  const list = (tls as { getCACertificates?: (type: 'bundled' | 'extra') => string[] }).getCACertificates;
  if (!url.startsWith('https:') || list === undefined) return { rejectUnauthorized: true };
  return (trust ??= {
    rejectUnauthorized: true,
    secureContext: tls.createSecureContext({ ca: [...list('bundled'), ...list('extra')] }),
  });
}

/**
 * The connection to the proxy, its CONNECT answer judged here (docs/remote.md, "Proxies, redirects,
 * connection failures"): undici's errors do not say the request never left. System errors pass.
 */
function tunnelClient(url: URL, opts: object, shown: string, variable: string): Dispatcher {
  const pool = new Pool(url, opts);
  const connect = pool.connect.bind(pool) as (params: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  const tunnel = async (params: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> => {
    const target = String(params.path ?? '');
    let answer: Dispatcher.ConnectData;
    try {
      answer = await connect(params);
    } catch (error) {
      if (systemErrorCode(error) !== undefined && !String(systemErrorCode(error)).startsWith('UND_ERR')) throw error;
      throw new ProxyTunnelError(shown, target, undefined, variable, error);
    }
    if (answer.statusCode !== 200) {
      answer.socket.on('error', () => undefined).destroy();
      throw new ProxyTunnelError(shown, target, answer.statusCode, variable);
    }
    return answer;
  };
  (pool as unknown as { connect: typeof tunnel }).connect = tunnel;
  return pool;
}

/** The proxy did not open the tunnel to the service: nothing was sent. */
export class ProxyTunnelError extends Error {
  constructor(
    readonly proxy: string,
    readonly target: string,
    /** The proxy's answer to CONNECT; undefined when it closed or failed without one. */
    readonly status: number | undefined,
    variable: string,
    cause?: unknown,
  ) {
    super(proxyTunnelWords(proxy, target, status, variable, cause), cause === undefined ? undefined : { cause });
    this.name = 'ProxyTunnelError';
  }

  /** A refusal or a demand for credentials is the same at every attempt; a gateway failure may pass. */
  get permanent(): boolean {
    return this.status !== undefined && this.status >= 400 && this.status < 500;
  }
}

function proxyTunnelWords(
  proxy: string,
  target: string,
  status: number | undefined,
  variable: string,
  cause: unknown,
): string {
  if (status === 407)
    return `the proxy ${proxy} requires authentication (407) for the tunnel to ${target}: check the credentials in ${variable} (http://user:password@host:port)`;
  if (status === 502 || status === 504)
    return `the proxy ${proxy} could not reach ${target} (${status}): check the base URL's host name, the proxy's DNS and network, and ${variable}/NO_PROXY`;
  if (status !== undefined)
    return `the proxy ${proxy} refused the tunnel to ${target} (${status}): check ${variable}/NO_PROXY and the proxy's credentials`;
  const why = cause instanceof Error && cause.message !== '' ? ` (${cause.message})` : '';
  return `the proxy ${proxy} closed the connection before opening the tunnel to ${target}${why}: check ${variable}/NO_PROXY and the proxy`;
}

/** Bytes of answers held at once by all of a run's requests; synchronous: undici delivers on one thread. */
export class ByteBudget {
  private used = 0;
  constructor(readonly limit: number) {}
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
  get held(): number {
    return this.used;
  }
}

/** A request that can be dropped (promise rejected, connection aborted); a link of its `InFlight`. */
export abstract class Stoppable {
  /** The requests added before and after this one, while it is in an InFlight. */
  inFlightPrev: Stoppable | undefined = undefined;
  inFlightNext: Stoppable | undefined = undefined;
  /** When the request is dropped (performance.now() ms). */
  inFlightDeadline = 0;
  inFlightLinked = false;

  abstract stop(reason: Error): void;
}

/**
 * One client's requests on the wire, each dropped at its deadline (a sweep every tenth of it, at most
 * 1 s, not a timer each), all when abandoned. Linked through the requests, oldest first, so in deadline
 * order: a Map kept every answer alive across scavenges (bench/README.md, "Session 40: per-user").
 */
export class InFlight {
  private head: Stoppable | undefined;
  private tail: Stoppable | undefined;
  private count = 0;
  private abandoned: Error | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private idle = false;
  private readonly period: number;

  constructor(private readonly deadlineMs: number) {
    this.period = Math.min(1000, Math.max(5, Math.floor(deadlineMs / 10)));
  }

  /** Requests on the wire. */
  get size(): number {
    return this.count;
  }

  add(request: Stoppable): boolean {
    if (this.abandoned !== undefined) {
      request.stop(this.abandoned);
      return false;
    }
    if (request.inFlightLinked) return true;
    request.inFlightDeadline = performance.now() + this.deadlineMs;
    request.inFlightPrev = this.tail;
    request.inFlightNext = undefined;
    if (this.tail !== undefined) this.tail.inFlightNext = request;
    // Stored every time: a store only into an empty list (a window drained mid-run) would be a
    // branch the optimized client never ran, and throw that code away.
    this.head = this.head ?? request;
    this.tail = request;
    request.inFlightLinked = true;
    this.count += 1;
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), this.period);
      this.sweeper.unref?.();
    }
    return true;
  }

  /** Unlinks the request (nothing if it is not on the wire); it keeps no reference to the others. */
  delete(request: Stoppable): void {
    if (!request.inFlightLinked) return;
    const { inFlightPrev: prev, inFlightNext: next } = request;
    if (prev === undefined) this.head = next;
    else prev.inFlightNext = next;
    if (next === undefined) this.tail = prev;
    else next.inFlightPrev = prev;
    request.inFlightPrev = undefined;
    request.inFlightNext = undefined;
    request.inFlightLinked = false;
    this.count -= 1;
  }

  /** Drops every request on the wire and every later one. */
  abandon(reason: Error): void {
    this.abandoned ??= reason;
    this.dropUntil(Number.POSITIVE_INFINITY, () => reason);
  }

  /** Unlinks and stops each request due by `time`, oldest first (each is unlinked before it is stopped). */
  private dropUntil(time: number, reason: () => Error): void {
    for (let request = this.head; request !== undefined && request.inFlightDeadline <= time; request = this.head) {
      this.delete(request);
      request.stop(reason());
    }
  }

  private sweep(): void {
    this.dropUntil(performance.now(), () => new AttemptDeadlineError(this.deadlineMs));
    // Stopped at the second sweep in a row with nothing on the wire (then `add` starts one, as
    // above: a branch optimized code never ran), not at a moment's drain of the window.
    const empty = this.count === 0;
    if (empty && this.idle && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    this.idle = empty && !this.idle;
  }
}

export interface AttemptLimits {
  /** One answer larger than this fails the attempt (bytes). */
  maxBytes?: number;
  /** Shared by every request of the client. */
  budget?: ByteBudget;
  /** The caller's requests on the wire: whole answers within its deadline, however slowly trickled. */
  inFlight?: InFlight;
}

/** One answer read whole, BOM dropped, without a stream: a Readable each cost more CPU than the rest together. */
export function requestText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: AttemptLimits = {},
): Promise<HeldText> {
  return new Promise<HeldText>((resolve, reject) => {
    const reader = new TextReader(limits, resolve, reject);
    if (limits.inFlight?.add(reader) === false) return;
    try {
      dispatcher.dispatch(options, reader);
    } catch (error) {
      reader.stop(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** One `requestText`'s handler, hooks on the prototype (no closures); its entry in `InFlight`. */
class TextReader extends Stoppable implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private headers: ResponseHeaders = {};
  private chunks: Buffer[] = [];
  // Bytes received (the per-answer cut) and bytes held (the shared budget): a run of spaces
  // is held as a count (`spaces`), written out only if something other than spaces follows.
  private received = 0;
  private length = 0;
  private spaces = 0;
  private keepLimit = Number.POSITIVE_INFINITY;
  private controller: Dispatcher.DispatchController | undefined;
  private stopped: Error | undefined;
  private readonly maxBytes: number;

  constructor(
    private readonly limits: AttemptLimits,
    private readonly resolve: (response: HeldText) => void,
    private readonly reject: (reason: Error) => void,
  ) {
    super();
    this.maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  }

  /** Rejected at once; the controller may come later (still connecting), so the stop is kept for it. */
  stop(reason: Error): void {
    if (this.stopped !== undefined) return;
    this.stopped = this.cutShort(reason);
    this.controller?.abort(this.stopped);
    this.settle();
    this.reject(this.stopped);
  }

  /** A body cut after a 2xx: probably applied, so not a (retried) network failure (docs/remote.md). */
  private cutShort(reason: Error): Error {
    if (this.statusCode < 200 || this.statusCode >= 300) return reason;
    if (reason instanceof ResponseTooLargeError || reason instanceof ResponseBudgetError) return reason;
    return new ResponseCutError(this.statusCode, reason);
  }

  private settle(): void {
    this.limits.inFlight?.delete(this);
    this.limits.budget?.give(this.length);
    this.chunks = [];
  }

  /** Keeps the pending spaces and then the chunk, within the shared budget; false when the attempt was stopped. */
  private hold(pending: Buffer | undefined, chunk: Buffer | undefined): boolean {
    // A long run of spaces before anything else is padding too: JSON and a page's snippet skip it.
    if (this.length === 0 && pending !== undefined && pending.length > PADDING_KEPT) pending = undefined;
    const bytes = (pending?.length ?? 0) + (chunk?.length ?? 0);
    const { budget } = this.limits;
    if (budget !== undefined && !budget.take(bytes)) {
      this.stop(new ResponseBudgetError(budget.limit, this.statusCode));
      return false;
    }
    this.length += bytes;
    if (pending !== undefined) this.chunks.push(pending);
    if (chunk !== undefined) this.chunks.push(chunk);
    return true;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped !== undefined) controller.abort(this.stopped);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[]>,
  ): void {
    // 1xx (100 Continue, 103 Early Hints) precede the real answer.
    if (status < 200) return;
    this.statusCode = status;
    this.headers = headers as ResponseHeaders;
    if (status >= 500 || status === 429) this.keepLimit = KEPT_OF_FAILURE;
  }

  onResponseData(_controller: Dispatcher.DispatchController, data: Buffer): void {
    if (this.stopped !== undefined) return;
    let chunk = data;
    this.received += chunk.length;
    if (this.received > this.maxBytes) {
      // A server that answers without end must not fill examctl's memory: the connection is dropped.
      this.stop(new ResponseTooLargeError(this.maxBytes, this.statusCode, declaredLength(this.headers)));
      return;
    }
    // A failure's words are at its start: the rest of a long 5xx page is read, not kept.
    if (this.length >= this.keepLimit) return;
    if (this.length + chunk.length > this.keepLimit) chunk = chunk.subarray(0, this.keepLimit - this.length);
    // Padding (a body of spaces, an envelope followed by megabytes of them) costs no memory.
    const kept = spacePaddingStart(chunk);
    if (kept > 0) {
      if (
        !this.hold(
          this.spaces > 0 ? Buffer.alloc(this.spaces, 0x20) : undefined,
          kept === chunk.length ? chunk : chunk.subarray(0, kept),
        )
      )
        return;
      this.spaces = 0;
    }
    this.spaces += chunk.length - kept;
  }

  onResponseEnd(): void {
    if (this.stopped !== undefined) return;
    // Trailing spaces mean nothing to JSON or to a page's snippet; a short run is kept as it came.
    if (this.spaces > 0 && this.spaces <= PADDING_KEPT && !this.hold(Buffer.alloc(this.spaces, 0x20), undefined))
      return;
    // Text and chunks are both held while decoding (then the text until `release`): both charged.
    // Charged first as one byte a byte (a UTF-8 byte is at most one character), then as it is.
    const { budget } = this.limits;
    if (budget !== undefined && !budget.take(this.length)) {
      this.stop(new ResponseBudgetError(budget.limit, this.statusCode));
      return;
    }
    let textHeld = this.length;
    const text = decodeReleasing(this.chunks);
    const cost = heldBytesOfText(text);
    if (budget !== undefined && cost > textHeld && !budget.take(cost - textHeld)) {
      budget.give(textHeld);
      this.stop(new ResponseBudgetError(budget.limit, this.statusCode));
      return;
    }
    budget?.give(Math.max(0, textHeld - cost));
    this.settle();
    this.resolve(new HeldText(this.statusCode, this.headers, text, this.received, budget, cost));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.stopped !== undefined) return;
    const reason = this.cutShort(error);
    this.stopped = reason;
    this.settle();
    this.reject(reason);
  }
}

/** A whole answer (also what the retry loop settles): `release` gives its bytes back once it is parsed. */
export class HeldText {
  readonly kind = 'response';
  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    readonly text: string,
    readonly bytes: number,
    private budget: ByteBudget | undefined,
    private held: number,
  ) {}

  release(): void {
    this.budget?.give(this.held);
    this.budget = undefined;
    this.held = 0;
  }
}

/** A run of spaces up to this at the start or the end is kept; a longer one is padding. */
const PADDING_KEPT = 64 * 1024;
/** Of a 5xx or 429 answer only this much is kept: its message is at its start, never a result. */
const KEPT_OF_FAILURE = 1024 * 1024;
const SPACES = Buffer.alloc(64 * 1024, 0x20);

/** The chunks as UTF-8 text, BOM dropped, not copied into one buffer first; each let go once decoded. */
function decodeReleasing(chunks: (Buffer | undefined)[]): string {
  if (chunks.length <= 1) {
    const body = chunks[0] ?? Buffer.alloc(0);
    chunks[0] = undefined;
    return body.toString('utf8', body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0);
  }
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (let i = 0; i < chunks.length; i += 1) {
    parts.push(decoder.write(chunks[i] as Buffer));
    chunks[i] = undefined;
  }
  parts.push(decoder.end());
  const text = parts.join('');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** What a string costs V8: a byte a character while every character is Latin-1, else two. */
export function heldBytesOfText(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? 2 * text.length : text.length;
}

/** Where the chunk's trailing run of spaces starts: 0 for spaces only (compared natively, 64 KiB at a time). */
export function spacePaddingStart(chunk: Buffer): number {
  let end = chunk.length;
  // The common chunk (an envelope, a page) does not end in a space: nothing to compare.
  if (end > 0 && chunk[end - 1] !== 0x20) return end;
  while (end > 0) {
    const from = Math.max(0, end - SPACES.length);
    if (chunk.compare(SPACES, 0, end - from, from, end) !== 0) break;
    end = from;
  }
  while (end > 0 && chunk[end - 1] === 0x20) end -= 1;
  return end;
}

/** The answer's body grew past the client's bound (no answer of the API comes near it). */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly maxBytes: number,
    /** The answer's status, its status line having arrived before the body (0: none yet). */
    readonly status = 0,
    /** Its Content-Length, when the server gave one. */
    readonly declaredBytes?: number,
  ) {
    super(`the response body is larger than ${formatBytes(maxBytes)}; no answer of the API is that large`);
    this.name = 'ResponseTooLargeError';
  }
}

/** The answers in flight together passed the run's budget. */
export class ResponseBudgetError extends Error {
  constructor(
    readonly limit: number,
    /** The dropped answer's status (0: none yet). */
    readonly status = 0,
  ) {
    super(`the answers in flight together passed ${formatBytes(limit)}; this answer was dropped`);
    this.name = 'ResponseBudgetError';
  }
}

/** The Content-Length the server announced, if a whole number. */
function declaredLength(headers: ResponseHeaders): number | undefined {
  const value = headerValue(headers, 'content-length');
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** A 2xx status line came, then the body ended early: the answer about the record is unread. */
export class ResponseCutError extends Error {
  constructor(
    readonly status: number,
    /** What ended it: the request timeout, a dropped connection. */
    readonly reason: Error,
  ) {
    super(`the answer was cut short: ${reason.message}`);
    this.name = 'ResponseCutError';
  }
}

/** Headers and body did not arrive within the request timeout, however the server paced them. */
export class AttemptDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`no whole answer within the request timeout (${formatMilliseconds(deadlineMs)})`);
    this.name = 'AttemptDeadlineError';
  }
}
