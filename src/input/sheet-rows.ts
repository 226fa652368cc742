/**
 * The rows of one worksheet part, streamed: each `<c>` becomes the value it stores (SheetValue) with its
 * number format. Rows and cells without an `r` follow the previous one; rows without cells are not passed on.
 */
import { isTrue, MAX_CELL_CHARS, type CellFormats } from './workbook-parts.js';
import { decodeXstring, EXCEL_CELL_CHARS } from '../formats/xstring.js';
import {
  utf8Chunks,
  XmlLimitError,
  XmlSyntaxError,
  XmlTokenizer,
  type XmlAttributes,
  type XmlHandler,
} from './workbook-xml.js';
import type { SheetValue } from './xlsx-cells.js';

export interface SheetCell {
  /** 1-based column (A = 1). */
  column: number;
  value: SheetValue;
  numFmt: string | undefined;
}

export interface ParsedRow {
  /** The sheet row number (1-based). */
  line: number;
  cells: SheetCell[];
  /** Hidden (`hidden="1"`, or no height: `ht="0" customHeight="1"`): by a filter, or by hand. */
  hidden?: true;
}

/** Excel's last column (XFD) and row (1,048,576): a sheet with more rows does not open. */
export const MAX_SHEET_COLUMNS = 16_384;
export const MAX_SHEET_ROWS = 1_048_576;

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** See SheetHandler.element. A value with `&` or a CR goes the general way (entities, line ends). */
const COMMON_CELL =
  /<c r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?(?: t="([a-zA-Z]{1,9})")?(?:\/>|>(?:<v>([^<&\r]*)<\/v>)?<\/c>)/y;

const enum TextTarget {
  None,
  Value,
  Formula,
  Inline,
}

/** Column letters of a 1-based column number (1 -> A, 28 -> AB). */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** Column number of the letters of a cell reference in `source` (`AB12` -> 28); 0 when it has none. */
export function columnOf(source: string, from: number, to: number): number {
  let column = 0;
  let i = from;
  for (; i < to; i++) {
    const code = source.charCodeAt(i) | 0x20;
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
    if (column > MAX_SHEET_COLUMNS) break;
  }
  return i === from ? 0 : column;
}

/** The number in `source` between the indexes (at most nine digits: a style, row or string index), else -1. */
function digitsAt(source: string, from: number, to: number): number {
  if (to === from || to - from > 9) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = source.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

class SheetHandler implements XmlHandler {
  wantsText = false;
  rows: ParsedRow[] = [];
  /** The row being read, or the last one read (for messages). */
  line = 0;
  private hidden = false;
  private inSheetData = false;
  private cells: SheetCell[] = [];
  private inCell = false;
  private column = 0;
  private numFmt: string | undefined;
  private type = 'n';
  private value = '';
  private hasValue = false;
  private formula = '';
  private hasFormula = false;
  private inline = '';
  private inInline = false;
  private phonetic = 0;
  private target = TextTarget.None;

  constructor(
    private readonly strings: readonly string[],
    private readonly formats: CellFormats,
  ) {}

  open(name: string, attributes: XmlAttributes): void {
    if (!this.inSheetData) {
      if (name === 'sheetData') this.inSheetData = true;
      return;
    }
    if (this.inCell) {
      if (name === 'v') this.startText(TextTarget.Value);
      else if (name === 'f') {
        this.hasFormula = true;
        this.startText(TextTarget.Formula);
      } else if (name === 'is') this.inInline = true;
      else if (name === 'rPh') this.phonetic++;
      else if (name === 't' && this.inInline && this.phonetic === 0) this.startText(TextTarget.Inline);
      return;
    }
    if (name === 'c') this.openCell(attributes);
    else if (name === 'row') {
      const r = attributes.raw('r');
      const line = r === undefined ? this.line + 1 : digitsAt(r, 0, r.length);
      if (line < 1 || line > MAX_SHEET_ROWS) throw new XmlSyntaxError(`a row numbered "${r}", which is no sheet row`);
      this.line = line;
      // A row dragged to no height (`ht="0"` with `customHeight`) is hidden to whoever looks at the sheet too.
      const height = attributes.raw('ht');
      this.hidden =
        isTrue(attributes.raw('hidden')) ||
        (height !== undefined && Number(height) === 0 && isTrue(attributes.raw('customHeight')));
      this.cells = [];
      this.column = 0;
    }
  }

  /**
   * The common cell (`<c r="B7" s="1" t="s"><v>3</v></c>`, Excel's attribute order, no entity) read whole by
   * one regular expression, several times cheaper than the tokenizer; anything else returns -1.
   */
  element(source: string, lt: number): number {
    if (!this.inSheetData || this.inCell || source.charCodeAt(lt + 1) !== 0x63 /* c */) return -1;
    const pattern = COMMON_CELL;
    pattern.lastIndex = lt;
    const match = pattern.exec(source);
    if (match === null) return -1;
    const letters = match[1] as string;
    const column = columnOf(letters, 0, letters.length);
    if (column > MAX_SHEET_COLUMNS)
      throw new XmlSyntaxError(`a cell reference "${letters}${match[2]}" that is no cell (columns end at XFD)`);
    this.column = column;
    const style = match[3];
    this.numFmt = style === undefined ? undefined : this.formats[Number(style)];
    this.type = match[4] ?? 'n';
    const stored = match[5];
    this.hasValue = stored !== undefined;
    this.value = stored ?? '';
    this.hasFormula = false;
    this.inline = '';
    const value = this.cellValue();
    if (value !== null) this.cells.push({ column, value, numFmt: this.numFmt });
    return pattern.lastIndex;
  }

  private openCell(attributes: XmlAttributes): void {
    // r and s are read in place: a slice of each for every cell is measurable on a large sheet.
    const source = attributes.source;
    const spans = attributes.spans;
    const r = attributes.find('r');
    const column = r === -1 ? this.column + 1 : columnOf(source, spans[r + 2] as number, spans[r + 3] as number);
    if (column < 1 || column > MAX_SHEET_COLUMNS) {
      throw new XmlSyntaxError(
        r === -1
          ? 'a cell right of column XFD, the last one'
          : `a cell reference "${attributes.raw('r')}" that is no cell (columns end at XFD)`,
      );
    }
    this.column = column;
    const s = attributes.find('s');
    this.numFmt = s === -1 ? undefined : this.formats[digitsAt(source, spans[s + 2] as number, spans[s + 3] as number)];
    this.type = attributes.raw('t') ?? 'n';
    this.inCell = true;
    this.value = '';
    this.hasValue = false;
    this.formula = '';
    this.hasFormula = false;
    this.inline = '';
    this.inInline = false;
    this.phonetic = 0;
  }

  private startText(target: TextTarget): void {
    this.target = target;
    this.wantsText = true;
    if (target === TextTarget.Value) this.hasValue = true;
  }

  text(text: string): void {
    if (this.target === TextTarget.Value) this.value += text;
    else if (this.target === TextTarget.Inline) this.inline += text;
    else if (this.target === TextTarget.Formula && this.formula.length < 64) this.formula += text;
    if (this.value.length + this.inline.length > MAX_CELL_CHARS) {
      throw new XmlLimitError(
        `cell ${this.reference()} holds over ${MAX_CELL_CHARS.toLocaleString('en-US')} characters (a cell holds at most ${EXCEL_CELL_CHARS.toLocaleString('en-US')})`,
      );
    }
  }

  close(name: string): void {
    if (!this.inSheetData) return;
    if (this.inCell) {
      if (name === 'v' || name === 'f' || name === 't') {
        this.target = TextTarget.None;
        this.wantsText = false;
      } else if (name === 'rPh') this.phonetic--;
      else if (name === 'is') this.inInline = false;
      else if (name === 'c') {
        this.inCell = false;
        const value = this.cellValue();
        if (value !== null) this.cells.push({ column: this.column, value, numFmt: this.numFmt });
      }
      return;
    }
    if (name === 'row') {
      if (this.cells.length > 0)
        this.rows.push(
          this.hidden ? { line: this.line, cells: this.cells, hidden: true } : { line: this.line, cells: this.cells },
        );
      this.cells = [];
    } else if (name === 'sheetData') this.inSheetData = false;
  }

  /** What the cell stores, by its type; null for a cell with no value (only a style). */
  private cellValue(): SheetValue {
    const type = this.type;
    const stored = this.hasValue ? this.value : undefined;
    let value: SheetValue;
    if (type === 's') {
      if (stored === undefined) return this.hasFormula ? { formula: this.formula } : null;
      // An empty value (`<v/>`) points to no string: other readers show an empty cell.
      if (stored.trim() === '') return this.hasFormula ? { formula: this.formula, result: '' } : null;
      const index = stored.trim();
      const text = this.strings[digitsAt(index, 0, index.length)];
      if (text === undefined) {
        throw new XmlSyntaxError(
          `cell ${this.reference()} points to shared string ${JSON.stringify(stored)}, but the table holds ${this.strings.length} (the file is damaged)`,
        );
      }
      value = text;
    } else if (type === 'inlineStr') value = decodeXstring(this.inline);
    else if (type === 'str') value = stored === undefined ? undefined : decodeXstring(stored);
    else if (type === 'b')
      value =
        stored === undefined
          ? undefined
          : isTrue(stored)
            ? true
            : stored === '0' || stored === 'false'
              ? false
              : { error: `"${stored}" (not a boolean)` };
    else if (type === 'e') value = stored === undefined ? undefined : { error: stored.trim() };
    else if (type === 'd') value = stored === undefined ? undefined : { isoDate: stored.trim() };
    else if (type === 'n')
      value =
        stored === undefined || stored.trim() === ''
          ? undefined
          : NUMBER.test(stored.trim())
            ? Number(stored)
            : Number.NaN;
    else throw new XmlSyntaxError(`cell ${this.reference()} has the type t="${type}", which is no cell type`);
    if (this.hasFormula) return { formula: this.formula, result: value ?? undefined };
    return value ?? null;
  }

  private reference(): string {
    return `${columnLetters(this.column)}${this.line}`;
  }

  take(): ParsedRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }
}

/** A sheet part that is not what it should be, with the row it was read up to (0: none yet). */
export class SheetPartError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly line: number,
  ) {
    super((cause as Error).message);
  }
}

/** The rows of a sheet part, in arrays per chunk of XML; any failure is thrown as a SheetPartError with the row. */
export async function* sheetRowBatches(
  chunks: AsyncIterable<Buffer>,
  strings: readonly string[],
  formats: CellFormats,
): AsyncGenerator<ParsedRow[]> {
  const handler = new SheetHandler(strings, formats);
  const tokenizer = new XmlTokenizer(handler);
  try {
    for await (const text of utf8Chunks(chunks)) {
      tokenizer.feed(text);
      if (handler.rows.length > 0) yield handler.take();
    }
    tokenizer.end();
  } catch (error) {
    throw new SheetPartError(error, handler.line);
  }
  if (handler.rows.length > 0) yield handler.take();
}
