import { InterruptedError } from './errors.js';

/**
 * The one JSON scanner every JSON text passes before JSON.parse (docs/security.md, "A hostile
 * file"); it resumes across the pieces of a file read in chunks. A fault never quotes the text
 * (a token file given by mistake): JSON.parse's own messages do, so none is passed on.
 */

export interface JsonLimits {
  /** Objects and arrays open at once. */
  depth: number;
  /** Object members and array elements in all (undefined: no limit). */
  entries?: number | undefined;
  /** Members of any one object (undefined: no limit). */
  keys?: number | undefined;
}

/** Objects and arrays open at once in any JSON examctl reads: its deepest (a schedule with candidates) nests five. */
export const MAX_JSON_DEPTH = 64;
/** Bounds of input records and documents: one object holds as many keys as a sheet row has cells. */
export const INPUT_LIMITS: JsonLimits = { depth: MAX_JSON_DEPTH, keys: 16_384 };

/**
 * What is wrong at `offset` (line and column from 1, in the scanned text): a syntax fault
 * (`expected`: what should be there) or a limit passed; its message says which, after `file:line: `.
 */
export class JsonFault extends Error {
  constructor(
    readonly offset: number,
    readonly line: number,
    readonly column: number,
    readonly expected: string,
    readonly kind: 'syntax' | 'depth' | 'entries' = 'syntax',
    atEnd = false,
  ) {
    super(
      kind === 'depth'
        ? `nested too deep: ${expected} (column ${column}); the limit keeps a hostile file from exhausting the stack`
        : kind === 'entries'
          ? `too many entries: ${expected} (column ${column})`
          : `not valid JSON: ${atEnd ? 'the text ends early, ' : ''}expected ${expected} at column ${column}`,
    );
  }
}

const enum Expect {
  Value,
  ValueOrClose,
  KeyOrClose,
  Key,
  Colon,
  CommaOrClose,
}

const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Characters a string holds as they are: anything but a quote, a backslash or a control character. */
const PLAIN = /[^"\\\u0000-\u001f]*/y;
const ESCAPE = /["\\/bfnrt]|u[0-9a-fA-F]{4}/y;
const MAX_NUMBER_CHARS = 400;
const LITERALS: Readonly<Record<string, string>> = { t: 'true', f: 'false', n: 'null' };

/** A key as the scanner reports it, with the keys and array indexes above it. */
export type OnKey = (key: string, path: readonly (string | number)[], line: number) => void;

/** Told as a scan goes: each key, and where each member's or element's value starts (`path` ends with it). */
export interface ScanOptions {
  strict?: boolean;
  onKey?: OnKey | undefined;
  onEntry?: ((path: readonly (string | number)[], line: number, at: number) => void) | undefined;
}

/**
 * Scans JSON values. `strict` checks every character of a string (control characters, escapes);
 * without it strings are skipped by search, and JSON.parse finds what is left (then a strict
 * scan says where). `line` counts the line breaks passed (they stand only between tokens).
 */
export class JsonScanner {
  line = 1;
  /** Offset, in the current text, of the current line's first character (negative once that text was cut off). */
  lineStart = 0;
  entries = 0;
  keys = 0;
  /** Where the scan stopped when the text ended inside a value: the next text starts with the rest from here. */
  resumeAt = 0;
  private readonly open: number[] = [];
  /** Keys each open object may still hold, by its depth. */
  private readonly members: number[] = [];
  private readonly path: (string | number)[] = [];
  private expect = Expect.Value;
  private inString = false;
  private stringIsKey = false;
  private stringStart = 0;
  private nextQuote = -2;
  private nextBackslash = -2;
  private nextNewline = -2;

  /** Whether the path is kept (only for a scan that tells keys or entries). */
  private readonly paths: boolean;
  private readonly maxEntries: number;

  constructor(
    private readonly limits: JsonLimits,
    private readonly options: ScanOptions = {},
  ) {
    this.paths = options.onKey !== undefined || options.onEntry !== undefined;
    this.maxEntries = limits.entries ?? Number.POSITIVE_INFINITY;
  }

  /** Before a new value: the counts of the last one cleared, the line kept. */
  restart(): void {
    this.open.length = 0;
    this.path.length = 0;
    this.expect = Expect.Value;
    this.inString = false;
    this.entries = 0;
    this.keys = 0;
  }

  /** The text's first `count` characters were dropped: offsets kept move with it. */
  shift(count: number): void {
    this.lineStart -= count;
    this.nextQuote = -2;
    this.nextBackslash = -2;
    this.nextNewline = -2;
  }

  /** 1-based column of `offset` in the current text. */
  column(offset: number): number {
    return offset - this.lineStart + 1;
  }

  /** A fault at `offset`, on the line the scan is at. */
  fault(text: string, offset: number, expected: string, kind: JsonFault['kind'] = 'syntax'): JsonFault {
    return new JsonFault(offset, this.line, this.column(offset), expected, kind, offset >= text.length);
  }

  /** The offset of the first non-space character from `pos`, counting lines. */
  skipSpace(text: string, pos: number): number {
    for (; pos < text.length; pos++) {
      const c = text.charCodeAt(pos);
      if (c === 0x0a) {
        this.line++;
        this.lineStart = pos + 1;
      } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
    }
    return pos;
  }

  /**
   * Scans one value from `pos` (or goes on with the one in progress); the offset just after it.
   * With `final` false, a text that ends inside the value gives -1 and `resumeAt`. Throws JsonFault.
   */
  scanValue(text: string, pos: number, final: boolean): number {
    const length = text.length;
    const open = this.open;
    while (pos < length) {
      if (this.inString) {
        const end =
          this.options.strict === true
            ? this.checkedStringEnd(text, pos, final)
            : this.quickStringEnd(text, pos, final);
        if (end === -1 && final) throw this.fault(text, length, 'the closing quote of the string');
        if (end < 0) return this.more(end === -1 ? length : -end - 2);
        this.inString = false;
        pos = end + 1;
        if (this.stringIsKey) {
          this.key(text, end);
          this.expect = Expect.Colon;
        } else if (open.length === 0) return pos;
        else this.expect = Expect.CommaOrClose;
        continue;
      }
      let c = text.charCodeAt(pos);
      if (c <= 0x20) {
        pos = this.skipSpace(text, pos);
        if (pos >= length) break;
        c = text.charCodeAt(pos);
      }
      if (this.expect === Expect.ValueOrClose && c === CLOSE_ARRAY) {
        pos = this.close(pos);
        if (open.length === 0) return pos;
        continue;
      }
      switch (this.expect) {
        case Expect.ValueOrClose:
        case Expect.Value: {
          if (open.length > 0 && (++this.entries > this.maxEntries || this.paths)) this.entry(text, pos, 0);
          if (c === 0x7b || c === 0x5b) {
            if (open.length >= this.limits.depth)
              throw this.fault(text, pos, `objects and arrays nested deeper than ${this.limits.depth} levels`, 'depth');
            this.members[open.length] = this.limits.keys ?? Infinity;
            open.push(c + 2);
            if (this.paths) this.path.push(c === 0x7b ? '' : -1);
            this.expect = c === 0x7b ? Expect.KeyOrClose : Expect.ValueOrClose;
            pos++;
            continue;
          }
          if (c === 0x22) {
            this.startString(pos, false);
            pos++;
            continue;
          }
          const end = this.scalar(text, pos, final);
          if (end === -1) {
            // Counted again when the scan goes on from here.
            if (open.length > 0) this.entry(text, pos, -1);
            return this.more(pos);
          }
          pos = end;
          if (open.length === 0) return pos;
          this.expect = Expect.CommaOrClose;
          continue;
        }
        case Expect.KeyOrClose:
        case Expect.Key:
          if (c === 0x22) {
            if (--this.members[open.length - 1]! < 0)
              throw this.fault(
                text,
                pos,
                `more than ${this.limits.keys!.toLocaleString('en-US')} keys in one object`,
                'entries',
              );
            this.startString(pos, true);
            pos++;
            continue;
          }
          if (c === CLOSE_OBJECT && this.expect === Expect.KeyOrClose) {
            pos = this.close(pos);
            if (open.length === 0) return pos;
            continue;
          }
          throw this.fault(
            text,
            pos,
            this.expect === Expect.Key
              ? 'a string, the next key (no "," after the last member)'
              : 'a string (a key) or "}"',
          );
        case Expect.Colon:
          if (c !== 0x3a) throw this.fault(text, pos, '":" after the key');
          this.expect = Expect.Value;
          pos++;
          continue;
        case Expect.CommaOrClose: {
          const closer = open[open.length - 1]!;
          if (c === 0x2c) {
            this.expect = closer === CLOSE_OBJECT ? Expect.Key : Expect.Value;
            pos++;
            continue;
          }
          if (c !== closer) throw this.fault(text, pos, closer === CLOSE_OBJECT ? '"," or "}"' : '"," or "]"');
          pos = this.close(pos);
          if (open.length === 0) return pos;
          continue;
        }
      }
    }
    if (final) {
      const wanted = [Expect.Value, Expect.ValueOrClose].includes(this.expect)
        ? 'a value'
        : this.expect === Expect.Colon
          ? '":"'
          : this.expect === Expect.CommaOrClose
            ? `"," or "${String.fromCharCode(open[open.length - 1]!)}"`
            : 'a string (a key)';
      throw this.fault(text, length, wanted);
    }
    return this.more(length);
  }

  private more(at: number): number {
    this.resumeAt = at;
    return -1;
  }

  /** One more member or element (counted already: `step` 0; -1: one fewer), within the limit. */
  private entry(text: string, pos: number, step: number): void {
    this.entries += step;
    if (this.entries > this.maxEntries)
      throw this.fault(text, pos, `more than ${this.maxEntries.toLocaleString('en-US')} entries`, 'entries');
    if (!this.paths) return;
    const path = this.path;
    if (typeof path[path.length - 1] === 'number') (path[path.length - 1] as number) += step < 0 ? -1 : 1;
    if (step >= 0) this.options.onEntry?.(path, this.line, pos);
  }

  private close(pos: number): number {
    this.open.pop();
    if (this.paths) this.path.pop();
    this.expect = Expect.CommaOrClose;
    return pos + 1;
  }

  private startString(pos: number, isKey: boolean): void {
    this.inString = true;
    this.stringIsKey = isKey;
    this.stringStart = pos;
    if (isKey) this.keys++;
  }

  /** A key's text, told to onKey with its path. */
  private key(text: string, end: number): void {
    const onKey = this.options.onKey;
    if (onKey === undefined) return;
    const raw = text.slice(this.stringStart + 1, end);
    let key = raw;
    try {
      if (raw.includes('\\')) key = JSON.parse(`"${raw}"`) as string;
    } catch {
      throw this.fault(text, this.stringStart, 'a key with valid escapes and no control characters');
    }
    this.path[this.path.length - 1] = key;
    onKey(key, this.path, this.line);
  }

  /**
   * The offset of the string's closing quote; -1 when the text ends inside it, -(at + 2) when it
   * must go on from `at` in the next text (an escape cut by the end). Every character is checked:
   * a run of plain ones is skipped by one sticky expression.
   */
  private checkedStringEnd(text: string, pos: number, final: boolean): number {
    for (;;) {
      PLAIN.lastIndex = pos;
      PLAIN.test(text);
      pos = PLAIN.lastIndex;
      if (pos >= text.length) return -1;
      const c = text.charCodeAt(pos);
      if (c === 0x22) return pos;
      if (c < 0x20)
        throw this.fault(
          text,
          pos,
          c === 0x0a
            ? 'the closing quote (a line break inside a string is written \\n)'
            : 'an escape (\\t, \\u0000) for a control character in a string',
        );
      ESCAPE.lastIndex = pos + 1;
      if (ESCAPE.test(text)) pos = ESCAPE.lastIndex;
      else if (!final && text.length - pos < 6) return -(pos + 2);
      else throw this.fault(text, pos, 'an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits');
    }
  }

  /**
   * checkedStringEnd by search (strings are most of the text): the positions of the next quote, backslash
   * and line break are cached, so each character is searched once however many escapes a string holds
   * (a search for the quote after every backslash was quadratic); JSON.parse finds what else is wrong,
   * then a strict scan where.
   */
  private quickStringEnd(text: string, pos: number, final: boolean): number {
    for (;;) {
      if (this.nextQuote !== -1 && this.nextQuote < pos) this.nextQuote = text.indexOf('"', pos);
      const quote = this.nextQuote;
      const end = quote === -1 ? text.length : quote;
      if (this.nextBackslash !== -1 && this.nextBackslash < pos) this.nextBackslash = text.indexOf('\\', pos);
      if (this.nextNewline !== -1 && this.nextNewline < pos) this.nextNewline = text.indexOf('\n', pos);
      const backslash = this.nextBackslash;
      const newline = this.nextNewline;
      if (newline !== -1 && newline < end && (backslash === -1 || newline < backslash))
        return this.checkedStringEnd(text, pos, final);
      if (backslash === -1 || backslash >= end) return quote;
      if (backslash + 1 >= text.length) return final ? -1 : -(backslash + 2);
      pos = backslash + 2;
      // A run of escapes is stepped over here, not by a search per escape.
      while (pos + 1 < end && text.charCodeAt(pos) === 0x5c) pos += 2;
    }
  }

  /** The offset after a number, true, false or null at `pos`; -1 when the text may end inside it. */
  private scalar(text: string, pos: number, final: boolean): number {
    const c = text[pos]!;
    const word = LITERALS[c];
    if (word !== undefined) {
      if (text.startsWith(word, pos)) return pos + word.length;
      if (!final && text.length - pos < word.length && word.startsWith(text.slice(pos))) return -1;
      throw this.fault(text, pos, 'a value');
    }
    // A number's characters (their order is JSON.parse's to check); one at the text's end may go on in the next.
    let end = pos;
    for (
      let c = text.charCodeAt(end);
      (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
      c = text.charCodeAt(++end)
    );
    // A longer one is no count or amount (and, cut by chunk borders, would be scanned again with each).
    if (end - pos > MAX_NUMBER_CHARS)
      throw this.fault(text, pos + MAX_NUMBER_CHARS, `a number of at most ${MAX_NUMBER_CHARS} characters`);
    if (end === text.length && !final) return -1;
    if (this.options.strict === true) {
      NUMBER.lastIndex = pos;
      end = NUMBER.test(text) ? NUMBER.lastIndex : pos;
    }
    if (end === pos) throw this.fault(text, pos, 'a value');
    return end;
  }
}

/** A whole JSON text scanned (one value, then only whitespace); throws JsonFault. */
export function scanJson(text: string, limits: JsonLimits, options: ScanOptions = {}): JsonScanner {
  const scanner = new JsonScanner(limits, options);
  const end = scanner.scanValue(text, scanner.skipSpace(text, 0), true);
  const after = scanner.skipSpace(text, end);
  if (after < text.length) throw scanner.fault(text, after, 'the end of the text (one value only)');
  return scanner;
}

/** A whole JSON text parsed within `limits`; throws JsonFault, never JSON.parse's message. */
export function parseJson(text: string, limits: JsonLimits, tell: Omit<ScanOptions, 'strict'> = {}): unknown {
  scanJson(text, limits, tell);
  return parsedAfterScan(text, limits);
}

/** JSON.parse of a text the quick scan passed; what it refuses is found by a strict scan. */
function parsedAfterScan(text: string, limits: JsonLimits): unknown {
  try {
    return JSON.parse(text);
  } catch {
    scanJson(text, limits, { strict: true });
    throw new JsonFault(text.length, 1, 1, 'valid JSON');
  }
}

/** Characters scanned between two turns of the event loop in `parseJsonYielding` and `scanJsonYielding`. */
export const YIELD_CHARS = 1024 * 1024;

/** What stops every parse in pieces that names no signal of its own: the CLI's Ctrl-C (SIGINT, SIGTERM, SIGHUP). */
let stopSignal: AbortSignal | undefined;
/** Told after each piece: a test's marker (EXAMCTL_TEST_SIGNAL_AFTER=parse:N:SIGNAL, docs/runs.md). */
let afterPiece: (() => void) | undefined;

/** Every JSON text read in pieces from now on stops when `signal` aborts (`piece`: told after each piece). */
export function stopJsonParsesOn(signal: AbortSignal | undefined, piece?: () => void): void {
  stopSignal = signal;
  afterPiece = piece;
}

/**
 * Scans `text` from its start in pieces of YIELD_CHARS, the event loop turning between them (so a
 * signal's handler runs) and a stopped parse ending at the next piece: `signal`'s reason, or for
 * the CLI's own, an InterruptedError. The offset after the value. A text of one piece never yields.
 */
async function scannedInPieces(text: string, scanner: JsonScanner, signal: AbortSignal | undefined): Promise<number> {
  let pos = scanner.skipSpace(text, 0);
  for (let end = Math.min(text.length, pos + YIELD_CHARS); ; end = Math.min(text.length, end + YIELD_CHARS)) {
    // A prefix of the text keeps its offsets (the scanner's searches are forgotten: they saw only the prefix).
    const final = end === text.length;
    scanner.shift(0);
    const after = scanner.scanValue(final ? text : text.slice(0, end), pos, final);
    if (after !== -1) return after;
    pos = scanner.resumeAt;
    await new Promise((resolve) => setImmediate(resolve));
    afterPiece?.();
    if (signal !== undefined) signal.throwIfAborted();
    else if (stopSignal?.aborted === true)
      throw new InterruptedError(
        `interrupted while reading a JSON text (${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters read)`,
      );
  }
}

/**
 * Whether the quick scan passes `text` whatever it holds (JSON.parse judges the rest): too short for a
 * number over MAX_NUMBER_CHARS, no more `{` and `[` (strings' counted too) than `depth`, no count limited.
 */
function scanCannotRefuse(text: string, limits: JsonLimits): boolean {
  if (text.length > MAX_NUMBER_CHARS || limits.entries !== undefined || limits.keys !== undefined) return false;
  let openings = 0;
  for (const bracket of '{[')
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1))
      if (++openings > limits.depth) return false;
  return true;
}

/** parseJson for a long text that must not hold the event loop (a body `local serve` is sent), in pieces. */
export async function parseJsonYielding(text: string, limits: JsonLimits, signal?: AbortSignal): Promise<unknown> {
  // A short body (a create) is parsed without the scan's pass over it: the scan would not refuse it.
  if (scanCannotRefuse(text, limits)) return parsedAfterScan(text, limits);
  const scanner = new JsonScanner(limits);
  const end = await scannedInPieces(text, scanner, signal);
  const after = scanner.skipSpace(text, end);
  if (after < text.length) throw scanner.fault(text, after, 'the end of the text (one value only)');
  return parsedAfterScan(text, limits);
}

/**
 * A first look at a long JSON text in pieces, so Ctrl-C stops it, before a reader's own parse, which says
 * what is wrong with it in the reader's words.
 */
export async function scanJsonYielding(text: string, limits: JsonLimits): Promise<void> {
  if (text.length <= YIELD_CHARS) return;
  await scannedInPieces(text, new JsonScanner(limits), undefined).catch((error: unknown) => {
    if (!(error instanceof JsonFault)) throw error;
  });
}

/** Where a key was given twice in one object: its path, its line and the first one's. */
export interface DuplicateKey {
  path: (string | number)[];
  line: number;
  first: number;
}

/**
 * The line of every key of a JSON text (by its path joined with NUL), and the first key given
 * twice in one object (JSON.parse would keep only the last); keys `mayRepeat` accepts may.
 */
export function keyLines(
  text: string,
  limits: JsonLimits,
  mayRepeat: (key: string) => boolean = () => false,
): { lines: Map<string, number>; duplicate?: DuplicateKey } {
  const lines = new Map<string, number>();
  let duplicate: DuplicateKey | undefined;
  scanJson(text, limits, {
    onKey: (key, path, line) => {
      // A key's path names its object and itself: a path seen before is a key given twice in one object.
      const at = path.join('\u0000');
      const first = lines.get(at);
      if (first === undefined) lines.set(at, line);
      else if (!mayRepeat(key)) duplicate ??= { path: [...path], line, first };
    },
  });
  return duplicate === undefined ? { lines } : { lines, duplicate };
}
