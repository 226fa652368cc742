import { StringDecoder } from 'node:string_decoder';
import { InputFileError } from '../system/errors.js';
import type { InputRecord } from './record.js';
import { jsonErrorReason, jsonSyntaxErrorOffset, lineAt } from './json-document.js';
import { readUtf8Chunks } from './text-source.js';

/**
 * Objects and arrays open at once within one record. The deepest API request (a schedule
 * with candidates and their hierarchies) nests five; a file nesting far deeper is hostile or
 * broken, and refusing it here keeps JSON.parse and every later walk off the call-stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Characters in one record (one object of an array, or one NDJSON line). Far above any real
 * request (a schedule with tens of thousands of candidates, a user with a photo), low enough
 * that a runaway file is refused with bounded memory.
 */
export const MAX_JSON_RECORD_CHARS = 32 * 1024 * 1024;

export interface JsonReadOptions {
  /** The file name used in messages and SourceRef (default: the path as given). */
  displayName?: string;
}

const enum Code {
  Tab = 0x09,
  Newline = 0x0a,
  Return = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Comma = 0x2c,
  Backslash = 0x5c,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
}

/** Where the scanner is between elements. */
const enum Mode {
  /** Before the first value of the file. */
  Start,
  /** Top-level objects (one object, or NDJSON): expecting another `{` or the end. */
  Objects,
  /** Inside the top-level array, expecting an element. */
  ArrayElement,
  /** Inside the top-level array, after an element: expecting `,` or `]`. */
  ArrayAfterElement,
  /** After the closing `]`: only whitespace may follow. */
  AfterArray,
}

function describe(code: number): string {
  if (Number.isNaN(code)) return 'the end of the file';
  const char = String.fromCharCode(code);
  if (char === '"') return 'a string';
  if (char === '[') return 'an array';
  if (char === '-' || (char >= '0' && char <= '9')) return 'a number';
  if (char === 't' || char === 'f') return 'a boolean';
  if (char === 'n') return 'null';
  return strayCharacter(code) ?? `"${char}"`;
}

/**
 * An invisible character named by its code point (quoted, it would print as `""`): a byte order
 * mark left inside a file by joining files or by an editor, a control or format character.
 */
function strayCharacter(code: number): string | undefined {
  if (code === 0xfeff) return 'a stray byte order mark U+FEFF';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x200b && code <= 0x200f) || (code >= 0x2028 && code <= 0x202e) || (code >= 0x2060 && code <= 0x2069)) {
    return `an invisible character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  return undefined;
}

/**
 * Incremental scanner: finds where each top-level object (or element of the top-level array)
 * starts and ends, tracking strings and nesting, and hands the text of each to JSON.parse.
 * Only the element being read is held in memory, so huge arrays stream.
 */
class JsonElementScanner {
  private text = '';
  private pos = 0;
  private line = 1;
  private mode = Mode.Start;
  private arrayLine = 0;
  /** Element in progress: start offset in `text`, its line, and the open brackets. */
  private elementStart = -1;
  private elementLine = 0;
  private readonly stack: number[] = [];
  private inString = false;
  /**
   * The element's text before `text` (earlier chunks), kept as pieces: appending each chunk to
   * one string and searching it again made a record spanning thousands of chunks quadratic.
   */
  private parts: string[] = [];
  private partsLength = 0;
  /**
   * Positions of the next backslash and line feed in `text` at or after the scan position
   * (-1: none left; a value below the position, such as the initial -2, means "look again"). Cached so that
   * each string does not search the rest of the chunk again.
   */
  private nextBackslash = -2;
  private nextNewline = -2;
  private index = 0;
  /**
   * Object members seen so far in the element (keys of every object in it, nested ones too), and
   * whether the next string is a key. JSON.parse keeps only the last of two equal keys; comparing
   * this count with the parsed value's key count finds such a record without slicing every key.
   */
  private keyCount = 0;
  private expectKey = false;

  constructor(
    private readonly file: string,
    private readonly emit: (record: InputRecord) => void,
  ) {}

  private error(line: number, reason: string): InputFileError {
    return new InputFileError(this.file, line, reason);
  }

  feed(chunk: string): void {
    this.text = this.elementStart === -1 ? chunk : this.text + chunk;
    this.pos = this.elementStart === -1 ? 0 : this.pos;
    // New text: the cached positions must be searched again.
    this.nextBackslash = -2;
    this.nextNewline = -2;
    this.scan();
    if (this.elementStart === -1) {
      this.text = '';
      this.pos = 0;
      return;
    }
    // Scanned text moves to the pieces; only an unscanned tail (an escape cut by the chunk border) stays.
    const scanned = this.text.slice(this.elementStart, this.pos);
    if (scanned.length > 0) {
      this.parts.push(scanned);
      this.partsLength += scanned.length;
    }
    this.text = this.text.slice(this.pos);
    this.pos = 0;
    this.elementStart = 0;
    if (this.partsLength + this.text.length > MAX_JSON_RECORD_CHARS) {
      throw this.tooLarge();
    }
  }

  finish(): void {
    if (this.elementStart !== -1) {
      throw this.error(this.elementLine, 'unexpected end of file: the object starting on this line is not closed');
    }
    if (this.mode === Mode.Start) throw this.error(1, 'no JSON content (the file is empty)');
    if (this.mode === Mode.ArrayElement || this.mode === Mode.ArrayAfterElement) {
      throw this.error(this.arrayLine, 'unexpected end of file: the array opened on this line is not closed (missing "]")');
    }
  }

  private scan(): void {
    const text = this.text;
    const length = text.length;
    let pos = this.pos;
    while (pos < length) {
      if (this.elementStart !== -1) {
        pos = this.scanElement(pos);
        if (this.elementStart !== -1) break;
        continue;
      }
      const code = text.charCodeAt(pos);
      if (code === Code.Space || code === Code.Tab || code === Code.Return) {
        pos++;
        continue;
      }
      if (code === Code.Newline) {
        this.line++;
        pos++;
        continue;
      }
      switch (this.mode) {
        case Mode.Start:
          if (code === Code.OpenBracket) {
            this.mode = Mode.ArrayElement;
            this.arrayLine = this.line;
            pos++;
            continue;
          }
          if (code === Code.OpenBrace) {
            this.mode = Mode.Objects;
            continue;
          }
          throw this.error(this.line, `expected a JSON object, an array of objects, or one object per line (NDJSON); found ${describe(code)}`);
        case Mode.Objects:
          if (code !== Code.OpenBrace) {
            throw this.error(
              this.line,
              code === Code.Comma
                ? 'unexpected "," after a JSON object: give several objects as an array [..] or one object per line'
                : `expected a JSON object (one per line); found ${describe(code)}`,
            );
          }
          this.beginElement(pos);
          continue;
        case Mode.ArrayElement:
          // `]` before any element: an empty array, zero records.
          if (code === Code.CloseBracket && this.index === 0) {
            this.mode = Mode.AfterArray;
            pos++;
            continue;
          }
          if (code !== Code.OpenBrace) {
            throw this.error(
              this.line,
              code === Code.CloseBracket
                ? `trailing comma after array element ${this.index - 1}`
                : `array element ${this.index} is not an object (found ${describe(code)})`,
            );
          }
          this.beginElement(pos);
          continue;
        case Mode.ArrayAfterElement:
          if (code === Code.Comma) {
            this.mode = Mode.ArrayElement;
            pos++;
            continue;
          }
          if (code === Code.CloseBracket) {
            this.mode = Mode.AfterArray;
            pos++;
            continue;
          }
          throw this.error(this.line, `expected "," or "]" after array element ${this.index - 1}; found ${describe(code)}`);
        case Mode.AfterArray:
          throw this.error(this.line, `unexpected content after the end of the JSON array: ${describe(code)}`);
      }
    }
    this.pos = pos;
  }

  private beginElement(pos: number): void {
    this.elementStart = pos;
    this.elementLine = this.line;
    this.stack.length = 0;
    this.inString = false;
    this.parts = [];
    this.partsLength = 0;
    this.keyCount = 0;
    this.expectKey = false;
    this.pos = pos;
  }

  /** Advances through the element from `from`; on its closing brace, parses and emits it. */
  private scanElement(from: number): number {
    const text = this.text;
    const length = text.length;
    const stack = this.stack;
    let pos = from;
    let inString = this.inString;
    while (pos < length) {
      if (inString) {
        // Strings are most of the text: jump to the next quote instead of walking each char.
        const quote = text.indexOf('"', pos);
        const end = quote === -1 ? length : quote;
        if (this.nextBackslash !== -1 && this.nextBackslash < pos) this.nextBackslash = text.indexOf('\\', pos);
        if (this.nextNewline !== -1 && this.nextNewline < pos) this.nextNewline = text.indexOf('\n', pos);
        const backslash = this.nextBackslash;
        const newline = this.nextNewline;
        if (newline !== -1 && newline < end && (backslash === -1 || newline < backslash)) {
          throw this.error(this.line, 'line break inside a string (a string is not closed on this line)');
        }
        if (backslash !== -1 && backslash < end) {
          // Resume at the backslash when the escaped character is in the next chunk.
          if (backslash + 1 >= length) {
            pos = backslash;
            break;
          }
          pos = backslash + 2;
          continue;
        }
        if (quote === -1) {
          pos = length;
          break;
        }
        inString = false;
        pos = quote + 1;
        continue;
      }
      const code = text.charCodeAt(pos);
      switch (code) {
        case Code.Quote:
          if (this.expectKey) {
            this.keyCount++;
            this.expectKey = false;
          }
          inString = true;
          break;
        case Code.Comma:
          if (stack[stack.length - 1] === Code.CloseBrace) this.expectKey = true;
          break;
        case Code.Newline:
          this.line++;
          break;
        case Code.OpenBrace:
          if (stack.length >= MAX_JSON_DEPTH) throw this.tooDeep();
          stack.push(Code.CloseBrace);
          this.expectKey = true;
          break;
        case Code.OpenBracket:
          if (stack.length >= MAX_JSON_DEPTH) throw this.tooDeep();
          stack.push(Code.CloseBracket);
          break;
        case Code.CloseBrace:
        case Code.CloseBracket: {
          const expected = stack.pop();
          if (expected !== code) {
            throw this.error(this.line, `unexpected "${String.fromCharCode(code)}"${expected === undefined ? '' : ` where "${String.fromCharCode(expected)}" was expected`}`);
          }
          if (stack.length === 0) {
            this.complete(pos + 1);
            this.inString = false;
            return pos + 1;
          }
          break;
        }
        default:
          break;
      }
      pos++;
    }
    this.inString = inString;
    return pos;
  }

  private tooLarge(): InputFileError {
    return this.error(
      this.elementLine,
      `record too large: the object starting on this line is over ${MAX_JSON_RECORD_CHARS.toLocaleString('en-US')} characters long (the limit for one JSON record)`,
    );
  }

  private tooDeep(): InputFileError {
    return this.error(
      this.line,
      `nested too deep: objects and arrays are open ${MAX_JSON_DEPTH} levels deep here (record starting on line ${this.elementLine}); API records nest a few levels, the limit is ${MAX_JSON_DEPTH}`,
    );
  }

  private complete(end: number): void {
    const tail = this.text.slice(this.elementStart, end);
    const source = this.parts.length === 0 ? tail : this.parts.join('') + tail;
    this.parts = [];
    this.partsLength = 0;
    if (source.length > MAX_JSON_RECORD_CHARS) {
      throw this.tooLarge();
    }
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      const offset = jsonSyntaxErrorOffset(source);
      const line = this.elementLine + lineAt(source, offset) - 1;
      const stray = strayCharacter(source.charCodeAt(offset));
      throw this.error(line, `malformed JSON: ${stray === undefined ? jsonErrorReason(error) : `found ${stray}`}`);
    }
    if (countKeys(value as object) !== this.keyCount) {
      // A key given twice: JSON.parse silently keeps the last value, which would send a
      // different record than the file seems to say (like two CSV columns for one field).
      const duplicate = findDuplicateKey(source);
      if (duplicate !== undefined) {
        throw this.error(
          this.elementLine + duplicate.lineOffset,
          `the key "${duplicate.key}" appears twice in one object (record starting on line ${this.elementLine}); JSON keeps only one of them`,
        );
      }
    }
    this.emit({
      source: { file: this.file, line: this.elementLine, index: this.index },
      fields: value as Record<string, unknown>,
    });
    this.index++;
    this.elementStart = -1;
    if (this.mode === Mode.ArrayElement) this.mode = Mode.ArrayAfterElement;
  }
}

/** Keys of every object in a parsed JSON value, nested ones included. */
function countKeys(value: object): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (const element of value) if (typeof element === 'object' && element !== null) count += countKeys(element as object);
    return count;
  }
  const keys = Object.keys(value);
  count = keys.length;
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === 'object' && member !== null) count += countKeys(member);
  }
  return count;
}

/**
 * The first key repeated within one object of a JSON text (already known to be valid JSON),
 * with the line of the repetition relative to the text's first line. Only called when a
 * duplicate is known to exist, so it favours clarity over speed.
 */
export function findDuplicateKey(source: string): { key: string; lineOffset: number } | undefined {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let lineOffset = 0;
  let expectKey = false;
  for (let pos = 0; pos < source.length; pos++) {
    const char = source[pos];
    if (char === '\n') lineOffset++;
    else if (char === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (char === '[') {
      open.push(null);
      expectKey = false;
    } else if (char === '}' || char === ']') open.pop();
    else if (char === ',') expectKey = open[open.length - 1] instanceof Set;
    else if (char === '"') {
      let end = pos + 1;
      while (source[end] !== '"') end += source[end] === '\\' ? 2 : 1;
      const keys = open[open.length - 1];
      if (expectKey && keys instanceof Set) {
        const key = JSON.parse(source.slice(pos, end + 1)) as string;
        if (keys.has(key)) return { key, lineOffset };
        keys.add(key);
        expectKey = false;
      }
      pos = end;
    }
  }
  return undefined;
}

async function* jsonRecordGenerator(path: string, options: JsonReadOptions): AsyncGenerator<InputRecord> {
  const file = options.displayName ?? path;
  const pending: InputRecord[] = [];
  const scanner = new JsonElementScanner(file, (record) => pending.push(record));
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of readUtf8Chunks(path, file)) {
      scanner.feed(decoder.write(chunk));
      for (const record of pending) yield record;
      pending.length = 0;
    }
    const rest = decoder.end();
    if (rest !== '') scanner.feed(rest);
    scanner.finish();
  } catch (error) {
    // The records before the problem are still passed on, then the problem.
    for (const record of pending) yield record;
    throw error;
  }
  for (const record of pending) yield record;
}

/**
 * Streams the records of a JSON file: one object, an array of objects, or NDJSON (one object
 * per line, blank lines allowed). Each record carries the line where it starts and its index.
 * Every iteration re-reads the file. Structural problems throw InputFileError.
 */
export function readJsonRecords(path: string, options: JsonReadOptions = {}): AsyncIterable<InputRecord> {
  return { [Symbol.asyncIterator]: () => jsonRecordGenerator(path, options) };
}
