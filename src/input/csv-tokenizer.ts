/**
 * The CSV grammar examctl reads, as csv-parse reads it with `relax_column_count`, `ltrim`,
 * `rtrim`, no comments, quote and escape `"` (cells compared after trimming), in a fraction of its
 * time: a record without a quote is cut with indexOf and split, which is most records of most
 * files; only records holding a quote go through the field-by-field scanner. Its equivalence
 * with csv-parse is checked by a differential test (test/input/csv-tokenizer.test.ts).
 *
 * - The record delimiter is the first line break outside quotes: CRLF, LF or CR. Other line
 *   break characters are then ordinary characters.
 * - A quote opens a quoted field only at the start of a field, where spaces and tabs (not the
 *   delimiter) before it are dropped; anywhere else in an unquoted field it is an error. Inside
 *   quotes, `""` is one quote; a closing quote may be followed by spaces and tabs (dropped),
 *   then must be followed by the delimiter, the record delimiter or the end of the input.
 *   (csv-parse's `ltrim`/`rtrim` read quoted fields the same way; unquoted fields keep their
 *   blanks here, the reader trims every cell.)
 */

export type CsvSyntaxCode = 'CSV_QUOTE_NOT_CLOSED' | 'CSV_INVALID_CLOSING_QUOTE' | 'INVALID_OPENING_QUOTE' | 'CSV_MAX_RECORD_SIZE';

/** A record longer than this (in characters, delimiters included) is refused: a runaway quote, not data. */
export const MAX_RECORD_CHARS = 128_000;

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/** Receives each record with the number of line feeds inside it (quoted line breaks). May throw. */
export type RecordHandler = (cells: string[], extraLines: number) => void;

const NEED_MORE = -1;
const NONE = 0;

export class CsvTokenizer {
  private rest = '';
  private recordDelimiter: string | undefined;
  private readonly delimiterCode: number;
  /** Set when a record is malformed; the tokenizer then stops. */
  error: CsvSyntaxCode | undefined;
  /**
   * With CSV_MAX_RECORD_SIZE or CSV_QUOTE_NOT_CLOSED: the 1-based column of the quoted field
   * still open when the record was refused (undefined: no quote was open, the record is just long).
   */
  errorQuoteColumn: number | undefined;
  /** The column of the quoted field left open by the last scan that needed more input. */
  private openQuoteColumn: number | undefined;

  constructor(
    private readonly delimiter: string,
    private readonly onRecord: RecordHandler,
  ) {
    if (delimiter.length !== 1) throw new Error(`CsvTokenizer: a delimiter is one character, got ${JSON.stringify(delimiter)}`);
    this.delimiterCode = delimiter.charCodeAt(0);
  }

  /**
   * Parses `text` after what was left over; hands on every complete record. With `end`, the
   * input is complete and a last record without a line break is handed on too. Returns false
   * once a syntax error was found (see `error`).
   */
  push(text: string, end: boolean): boolean {
    if (this.error !== undefined) return false;
    const s = this.rest.length === 0 ? text : this.rest + text;
    const length = s.length;
    const delimiter = this.delimiter;
    let pos = 0;
    // Next quote and line feed at or after pos (-1: none), found once and reused across records.
    let nextQuote = -2;
    let nextLf = -2;
    this.openQuoteColumn = undefined;
    while (pos < length) {
      const rd = this.recordDelimiter;
      if (rd !== undefined) {
        let recordEnd = s.indexOf(rd, pos);
        if (recordEnd === -1) {
          if (!end) break;
          recordEnd = length;
        }
        if (nextQuote !== -1 && nextQuote < pos) nextQuote = s.indexOf('"', pos);
        if (nextQuote === -1 || nextQuote >= recordEnd) {
          // The common case: no quote in the record, cut it with split.
          if (recordEnd - pos > MAX_RECORD_CHARS) return this.fail('CSV_MAX_RECORD_SIZE');
          let extra = 0;
          if (rd !== '\n') {
            if (nextLf !== -1 && nextLf < pos) nextLf = s.indexOf('\n', pos);
            while (nextLf !== -1 && nextLf < recordEnd) {
              extra += 1;
              nextLf = s.indexOf('\n', nextLf + 1);
            }
          }
          this.onRecord(s.slice(pos, recordEnd).split(delimiter), extra);
          pos = recordEnd === length ? length : recordEnd + rd.length;
          continue;
        }
      }
      const next = this.scanRecord(s, pos, end);
      if (next === NEED_MORE) break;
      if (next === NONE) return false;
      pos = next;
    }
    this.rest = pos >= length ? '' : s.slice(pos);
    if (this.rest.length > MAX_RECORD_CHARS) return this.fail('CSV_MAX_RECORD_SIZE', this.openQuoteColumn);
    if (end && this.rest.length > 0) {
      // Only an incomplete quoted field can be left over at the end.
      return this.fail('CSV_QUOTE_NOT_CLOSED', this.openQuoteColumn);
    }
    return true;
  }

  private fail(code: CsvSyntaxCode, quoteColumn?: number): false {
    this.error = code;
    this.errorQuoteColumn = quoteColumn;
    this.rest = '';
    return false;
  }

  /** Length of the record delimiter at i (0: none), or NEED_MORE; discovers it on the first line break. */
  private recordDelimiterAt(s: string, i: number, end: boolean): number {
    const c = s.charCodeAt(i);
    if (c !== CR && c !== LF) return 0;
    const rd = this.recordDelimiter;
    if (rd === undefined) {
      if (c === LF) {
        this.recordDelimiter = '\n';
        return 1;
      }
      if (i + 1 >= s.length && !end) return NEED_MORE;
      this.recordDelimiter = s.charCodeAt(i + 1) === LF ? '\r\n' : '\r';
      return this.recordDelimiter.length;
    }
    if (rd === '\n') return c === LF ? 1 : 0;
    if (rd === '\r') return c === CR ? 1 : 0;
    if (c !== CR) return 0;
    if (i + 1 >= s.length) return end ? 0 : NEED_MORE;
    return s.charCodeAt(i + 1) === LF ? 2 : 0;
  }

  /**
   * Field by field, for a record holding a quote (or the first line, before the record
   * delimiter is known). Returns the position after the record, NEED_MORE, or NONE on an error.
   */
  private scanRecord(s: string, start: number, end: boolean): number {
    const length = s.length;
    const cells: string[] = [];
    const delimiterCode = this.delimiterCode;
    let p = start;
    for (;;) {
      if (p - start > MAX_RECORD_CHARS) {
        this.fail('CSV_MAX_RECORD_SIZE');
        return NONE;
      }
      // Blanks before a quoted field are allowed and dropped (` "A" `, as hand-edited files have).
      let q0 = p;
      while (q0 < length && this.isBlank(s.charCodeAt(q0))) q0++;
      // Whether a quote follows the blanks is known only with more input.
      if (q0 >= length && q0 > p && !end) return NEED_MORE;
      if (q0 < length && s.charCodeAt(q0) === QUOTE) {
        p = q0;
        let value = '';
        let from = p + 1;
        for (;;) {
          const q = s.indexOf('"', from);
          if (q === -1) {
            if (end) {
              this.fail('CSV_QUOTE_NOT_CLOSED', cells.length + 1);
              return NONE;
            }
            this.openQuoteColumn = cells.length + 1;
            // An open quote that already ran past the limit will never make a record.
            if (length - start > MAX_RECORD_CHARS) {
              this.fail('CSV_MAX_RECORD_SIZE', cells.length + 1);
              return NONE;
            }
            return NEED_MORE;
          }
          // Enough look-ahead to tell "" from a closing quote followed by CRLF.
          if (q + 2 >= length && !end) {
            this.openQuoteColumn = cells.length + 1;
            return NEED_MORE;
          }
          if (s.charCodeAt(q + 1) === QUOTE) {
            value += s.slice(from, q + 1);
            from = q + 2;
            continue;
          }
          value += s.slice(from, q);
          p = q + 1;
          break;
        }
        cells.push(value);
        // ...and so are blanks after its closing quote.
        const closedAt = p;
        while (p < length && this.isBlank(s.charCodeAt(p))) p++;
        if (p >= length) {
          if (!end) return NEED_MORE;
          return this.emit(cells, s, start, length, length);
        }
        if (s.charCodeAt(p) === delimiterCode) {
          p += 1;
          continue;
        }
        const rdLength = this.recordDelimiterAt(s, p, end);
        if (rdLength === NEED_MORE) return NEED_MORE;
        if (rdLength > 0) return this.emit(cells, s, start, p, p + rdLength);
        // `"a" "b"` reads as a second quoted field opened in the wrong place (as csv-parse says).
        this.fail(p > closedAt && s.charCodeAt(p) === QUOTE ? 'INVALID_OPENING_QUOTE' : 'CSV_INVALID_CLOSING_QUOTE');
        return NONE;
      }
      let i = p;
      for (; i < length; i++) {
        const c = s.charCodeAt(i);
        if (c === delimiterCode) break;
        if (c === CR || c === LF) {
          const rdLength = this.recordDelimiterAt(s, i, end);
          if (rdLength === NEED_MORE) return NEED_MORE;
          if (rdLength > 0) {
            cells.push(s.slice(p, i));
            return this.emit(cells, s, start, i, i + rdLength);
          }
        } else if (c === QUOTE) {
          this.fail('INVALID_OPENING_QUOTE');
          return NONE;
        }
      }
      if (i >= length) {
        if (!end) return NEED_MORE;
        cells.push(s.slice(p, length));
        return this.emit(cells, s, start, length, length);
      }
      cells.push(s.slice(p, i));
      p = i + 1;
    }
  }

  /** A space, or a tab when the tab is not the delimiter. */
  private isBlank(c: number): boolean {
    return (c === SPACE || c === TAB) && c !== this.delimiterCode;
  }

  private emit(cells: string[], s: string, start: number, recordEnd: number, next: number): number {
    if (recordEnd - start > MAX_RECORD_CHARS) {
      this.fail('CSV_MAX_RECORD_SIZE');
      return NONE;
    }
    let extra = 0;
    for (let i = s.indexOf('\n', start); i !== -1 && i < recordEnd; i = s.indexOf('\n', i + 1)) extra++;
    this.onRecord(cells, extra);
    return next;
  }
}
