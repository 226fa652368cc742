/*
 * The rows of a CSV text with no quote in it, read as csv-parse would (csv-reader.ts `csvParser`);
 * what it takes, what it hands over, and why: docs/architecture.md, "Written here, and why".
 */

const QUOTE = 0x22;
/**
 * csv-parse reads a byte only once this many follow it (U+3000, its longest trimmed character, and a whole
 * CRLF): a line ending closer to the chunk's end is read with the next chunk, here too, so each chunk hands
 * on csv-parse's rows.
 */
const LOOK_AHEAD = 3;
const CR = 0x0d;
const LF = 0x0a;

/** What csv-parse takes over with: the bytes from an unfinished line's start, and how it is set up. */
export interface CsvHandOver {
  bytes: Buffer;
  /** The record delimiter the lines so far were ended by (csv-parse would have found it); undefined: none seen yet. */
  recordDelimiter: '\n' | '\r\n' | undefined;
  /** Nothing was taken here: csv-parse starts at the input's start (and skips a byte order mark there). */
  atStart: boolean;
}

export class UnquotedCsvLines {
  /** The line ending of the lines taken (csv-parse's discovered record delimiter). */
  private ending: '\n' | '\r\n' | undefined;
  private carry: Buffer | undefined;
  /** Bytes not taken, for csv-parse, once `write` or `end` said false. */
  private left: Buffer | undefined;
  private started = false;
  /** Characters of a line read here at most: its UTF-8 bytes (3 a character at most) stay within csv-parse's limit. */
  private readonly maxChars: number;

  constructor(
    private readonly delimiter: string,
    /** Told each line's cells; `lineFeeds` 0: no cell of a line read here holds a line break. */
    private readonly onRecord: (cells: string[], lineFeeds: 0) => void,
    maxRecordBytes: number,
  ) {
    this.maxChars = Math.floor(maxRecordBytes / 3);
  }

  /** Only `,`, `;` and the tab are read here (an Excel `sep=` line may name any character). */
  static reads(delimiter: string): boolean {
    return delimiter === ',' || delimiter === ';' || delimiter === '\t';
  }

  /** Hands the chunk's complete lines to `onRecord`; false (nothing handed on) when the chunk must go to csv-parse. */
  write(chunk: Buffer): boolean {
    if (this.left !== undefined) return false;
    const bytes = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    // A byte order mark left at the start (a file that had two) is csv-parse's to skip.
    if (chunk.indexOf(QUOTE) !== -1 || (!this.started && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf))
      return this.leave(bytes);
    if (this.ending === undefined) {
      // csv-parse takes the first CR or LF for the line ending (CRLF, LF or CR), once it reads it.
      const cr = bytes.indexOf(CR);
      const lf = bytes.indexOf(LF);
      const first = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (first === -1 || first > bytes.length - 1 - LOOK_AHEAD) return this.keep(bytes);
      if (bytes[first] === LF) this.ending = '\n';
      else if (bytes[first + 1] === LF) this.ending = '\r\n';
      // A line ended by CR alone (classic Mac): csv-parse's.
      else return this.leave(bytes);
    }
    // The last line ending csv-parse reads in this chunk: at its first byte (a CRLF's CR).
    const lastRead = bytes.length - 1 - LOOK_AHEAD + (this.ending === '\r\n' ? 1 : 0);
    const lastLf = lastRead < 0 ? -1 : bytes.lastIndexOf(LF, lastRead);
    if (lastLf === -1) return this.ending === '\n' && bytes.indexOf(CR) !== -1 ? this.leave(bytes) : this.keep(bytes);
    if (this.ending === '\n' && bytes.indexOf(CR) !== -1) return this.leave(bytes);
    const lines = this.lines(bytes.toString('utf8', 0, lastLf + 1));
    if (lines === undefined) return this.leave(bytes);
    const rest = bytes.subarray(lastLf + 1);
    this.started = true;
    this.carry = rest.length === 0 ? undefined : rest;
    const delimiter = this.delimiter;
    // The last piece is the empty text after the last line ending.
    for (let i = 0; i < lines.length - 1; i++) this.onRecord((lines[i] as string).split(delimiter), 0);
    return true;
  }

  /** The input ended: the lines left handed on (the last may have no line ending); false when they are csv-parse's. */
  end(): boolean {
    if (this.left !== undefined) return false;
    const last = this.carry;
    if (last === undefined) return true;
    this.ending ??= '\n';
    if (this.ending === '\n' && last.indexOf(CR) !== -1) return this.leave(last);
    const lines = this.lines(last.toString('utf8'));
    if (lines === undefined) return this.leave(last);
    this.carry = undefined;
    // csv-parse ends its last record at the end of the input, and makes none of an empty last line.
    if (lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) this.onRecord(line.split(this.delimiter), 0);
    return true;
  }

  /** The text's lines, split at the line ending; undefined when it mixes in another or a line is too long here. */
  private lines(text: string): string[] | undefined {
    const lines = text.split(this.ending as string);
    // In CRLF text every CR and LF is one of the CRLFs between its lines, or the ends are mixed.
    if (this.ending === '\r\n' && (count(text, '\r') !== lines.length - 1 || count(text, '\n') !== lines.length - 1))
      return undefined;
    for (const line of lines) if (line.length > this.maxChars) return undefined;
    return lines;
  }

  /** After `write` or `end` said false: what csv-parse takes over with. */
  handOver(): CsvHandOver {
    return {
      bytes: this.left ?? Buffer.alloc(0),
      recordDelimiter: this.started ? this.ending : undefined,
      atStart: !this.started,
    };
  }

  /** An unfinished line kept for the next chunk, unless it grew past what is read here. */
  private keep(bytes: Buffer): boolean {
    if (bytes.length > this.maxChars) return this.leave(bytes);
    this.carry = bytes.length === 0 ? undefined : bytes;
    return true;
  }

  private leave(bytes: Buffer): false {
    this.left = bytes;
    this.carry = undefined;
    return false;
  }
}

function count(text: string, char: string): number {
  let found = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) found++;
  return found;
}
