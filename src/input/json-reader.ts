import { StringDecoder } from 'node:string_decoder';
import { InputFileError } from '../system/errors.js';
import type { InputRecord } from './record.js';
import { batchedRecords, collectedBatches, type BatchedRecords } from './batches.js';
import { quotedValue } from '../domain/problem.js';
import { INPUT_LIMITS, JsonFault, JsonScanner, keyLines, scanJson } from '../system/json-scan.js';
import { readUtf8Chunks, type TextOptions } from './text-source.js';

/** Characters in one record (an object of an array, an NDJSON line): far above any real request, bounded memory. */
export const MAX_JSON_RECORD_CHARS = 32 * 1024 * 1024;

const enum Code {
  Comma = 0x2c,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
}

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
  // Only JSON's own punctuation is quoted: a file given by mistake (a token) shows nothing of itself.
  return strayCharacter(code) ?? ('{}[],:'.includes(char) ? `"${char}"` : 'a character that starts no JSON value');
}

/** An invisible character (a stray BOM, a control or format character) by its code point: quoted it shows `""`. */
function strayCharacter(code: number): string | undefined {
  if (code === 0xfeff) return 'a stray byte order mark U+FEFF';
  if (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2069)
  ) {
    return `an invisible character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  return undefined;
}

/**
 * Finds where each top-level object (or element of the top-level array) starts and ends with the one JSON
 * scanner (system/json-scan.ts) and hands its text to JSON.parse: only that element is held, so huge arrays stream.
 */
class JsonElementScanner {
  private text = '';
  private pos = 0;
  private readonly scanner = new JsonScanner(INPUT_LIMITS);
  private mode = Mode.Start;
  private arrayLine = 0;
  /** Element in progress: start offset in `text`, its line and column. */
  private elementStart = -1;
  private elementLine = 0;
  private elementColumn = 0;
  /** The element's text from earlier chunks, as pieces: appending to one string and searching it is quadratic. */
  private parts: string[] = [];
  private partsLength = 0;
  private index = 0;

  constructor(
    private readonly file: string,
    private readonly emit: (record: InputRecord) => void,
  ) {}

  private error(line: number, reason: string): InputFileError {
    return new InputFileError(this.file, line, reason);
  }

  feed(chunk: string): void {
    this.text += chunk;
    this.scan();
    // Scanned text leaves `text` (to the element's pieces, or dropped); an unscanned tail (a cut token) stays.
    if (this.elementStart !== -1) {
      const scanned = this.text.slice(this.elementStart, this.pos);
      if (scanned.length > 0) {
        this.parts.push(scanned);
        this.partsLength += scanned.length;
      }
      this.elementStart = 0;
    }
    this.scanner.shift(this.pos);
    this.text = this.text.slice(this.pos);
    this.pos = 0;
    if (this.elementStart !== -1 && this.partsLength + this.text.length > MAX_JSON_RECORD_CHARS) throw this.tooLarge();
  }

  finish(): void {
    if (this.elementStart !== -1) {
      throw this.error(this.elementLine, 'unexpected end of file: the object starting on this line is not closed');
    }
    if (this.mode === Mode.Start) throw this.error(1, 'no JSON content (the file is empty)');
    if (this.mode === Mode.ArrayElement || this.mode === Mode.ArrayAfterElement) {
      throw this.error(
        this.arrayLine,
        'unexpected end of file: the array opened on this line is not closed (missing "]")',
      );
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
      pos = this.scanner.skipSpace(text, pos);
      if (pos >= length) break;
      const code = text.charCodeAt(pos);
      switch (this.mode) {
        case Mode.Start:
          if (code === Code.OpenBracket) {
            this.mode = Mode.ArrayElement;
            this.arrayLine = this.scanner.line;
            pos++;
            continue;
          }
          if (code === Code.OpenBrace) {
            this.mode = Mode.Objects;
            continue;
          }
          throw this.error(
            this.scanner.line,
            `expected a JSON object, an array of objects, or one object per line (NDJSON); found ${describe(code)}`,
          );
        case Mode.Objects:
          if (code !== Code.OpenBrace) {
            throw this.error(
              this.scanner.line,
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
              this.scanner.line,
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
          throw this.error(
            this.scanner.line,
            `expected "," or "]" after array element ${this.index - 1}; found ${describe(code)}`,
          );
        case Mode.AfterArray:
          throw this.error(this.scanner.line, `unexpected content after the end of the JSON array: ${describe(code)}`);
      }
    }
    this.pos = pos;
  }

  private beginElement(pos: number): void {
    this.elementStart = pos;
    this.elementLine = this.scanner.line;
    this.elementColumn = this.scanner.column(pos);
    this.scanner.restart();
    this.parts = [];
    this.partsLength = 0;
  }

  private scanElement(from: number): number {
    let end: number;
    try {
      end = this.scanner.scanValue(this.text, from, false);
    } catch (error) {
      throw this.faultError(error, this.text);
    }
    if (end === -1) return this.scanner.resumeAt;
    this.complete(end);
    return end;
  }

  /**
   * A scanner's fault as the reader words it (`firstLine`: the file's line of the text's first, when
   * the text is the record alone), a stray character named, the record's first line beside a limit.
   */
  private faultError(error: unknown, text: string, firstLine?: number): unknown {
    if (!(error instanceof JsonFault)) return error;
    const line = (firstLine ?? 1) - 1 + error.line;
    if (error.kind !== 'syntax')
      return this.error(line, `${error.message} (record starting on line ${this.elementLine})`);
    // A line break or tab is said by the fault itself; another invisible character is named.
    const found = text.charCodeAt(error.offset);
    const stray =
      Number.isNaN(found) || found === 0x0a || found === 0x09 || found === 0x0d ? undefined : strayCharacter(found);
    // On the record's first line, the column counts from the line's start in the file.
    const column = firstLine !== undefined && error.line === 1 ? this.elementColumn + error.column - 1 : error.column;
    return this.error(
      line,
      `malformed JSON: ${stray === undefined ? `expected ${error.expected}` : `found ${stray}`} at column ${column}`,
    );
  }

  private tooLarge(): InputFileError {
    return this.error(
      this.elementLine,
      `record too large: the object starting on this line is over ${MAX_JSON_RECORD_CHARS.toLocaleString('en-US')} characters long (the limit for one JSON record)`,
    );
  }

  private complete(end: number): void {
    const tail = this.text.slice(this.elementStart, end);
    const source = this.parts.length === 0 ? tail : this.parts.join('') + tail;
    this.parts = [];
    this.partsLength = 0;
    if (source.length > MAX_JSON_RECORD_CHARS) throw this.tooLarge();
    const keys = this.scanner.keys;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      // What JSON.parse refused (a control character, an escape), found by a strict scan: its own words quote the file.
      try {
        scanJson(source, INPUT_LIMITS, { strict: true });
      } catch (error) {
        throw this.faultError(error, source, this.elementLine);
      }
      throw this.error(this.elementLine, 'malformed JSON');
    }
    if (countKeys(value as object) !== keys) {
      // A key given twice: JSON.parse silently keeps the last value, which would send a
      // different record than the file seems to say (like two CSV columns for one field).
      const duplicate = keyLines(source, INPUT_LIMITS).duplicate;
      if (duplicate !== undefined) {
        throw this.error(
          this.elementLine + duplicate.line - 1,
          `the key ${quotedValue(String(duplicate.path[duplicate.path.length - 1]))} appears twice in one object (record starting on line ${this.elementLine}); JSON keeps only one of them`,
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
    for (const element of value)
      if (typeof element === 'object' && element !== null) count += countKeys(element as object);
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

async function* jsonRecordSteps(
  path: string,
  file: string,
  add: (record: InputRecord) => void,
  same: TextOptions['same'],
): AsyncGenerator<void> {
  const scanner = new JsonElementScanner(file, add);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of readUtf8Chunks(path, file, { same })) {
    scanner.feed(decoder.write(chunk));
    yield;
  }
  const rest = decoder.end();
  if (rest !== '') scanner.feed(rest);
  scanner.finish();
  yield;
}

/**
 * Streams the records of a JSON file (one object, an array of objects, or NDJSON with blank lines), re-read at each
 * iteration; a structural problem throws InputFileError after the records before it.
 */
export function readJsonRecords(path: string, file = path, same = {}): BatchedRecords {
  return batchedRecords(() => collectedBatches((add) => jsonRecordSteps(path, file, add, same)));
}
