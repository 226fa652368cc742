/**
 * examctl's own .xlsx writer (SpreadsheetML, ECMA-376 Part 1): a workbook of sheets of text,
 * each written row by row into a streamed zip entry (zip-writer.ts), so a sheet of a million
 * rows is never in memory and the writer waits whenever the output does. What it writes is what
 * every workbook of examctl needs and no more: one styles part shared by every sheet (text
 * number format `@`, a bold header, solid red and amber fills), per sheet the column widths
 * with the text format as column style (a cell typed in later is text too), the first row frozen,
 * an auto-filter over the written range, and every value an inline string (`t="inlineStr"`)
 * with Excel's escapes for what XML cannot hold (xstring.ts). No shared strings: they would have
 * to be held until the end. Read back by src/input/xlsx-reader.ts, openpyxl, LibreOffice, Excel
 * (scripts/test-interop.mjs).
 */
import type { Writable } from 'node:stream';
import { columnLetters as columnName } from '../input/sheet-rows.js';
import { encodeXstring } from '../formats/xstring.js';
import { ZipWriter, type ZipEntryStream } from './zip-writer.js';

/** How a row looks: the index of its cell format in the styles part (STYLES_XML's cellXfs). */
export const RowLook = {
  plain: 1,
  header: 2,
  red: 3,
  amber: 4,
} as const;
export type RowLook = (typeof RowLook)[keyof typeof RowLook];

/**
 * A row's XML as UTF-8 in one reused buffer, encoded by hand: the text of a cell escaped for
 * XML (`&`, `<`, `>`) as it is copied, so that no escaped copy of it is made.
 */
class RowBytes {
  buffer = Buffer.allocUnsafe(16 * 1024);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  /** Text known to be ASCII with nothing to escape (markup, numbers, references). */
  ascii(text: string): void {
    this.room(text.length);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** A cell's text: UTF-8, `&<>` as entities. Lone surrogates were escaped before (xstring.ts). */
  xmlText(text: string): void {
    // At most 5 bytes per UTF-16 unit (`&amp;`); a pair takes 4 for its two.
    this.room(text.length * 5);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c === 0x26) at = put(buffer, at, AMP);
        else if (c === 0x3c) at = put(buffer, at, LT);
        else if (c === 0x3e) at = put(buffer, at, GT);
        else buffer[at++] = c;
      } else if (c < 0x800) {
        buffer[at++] = 0xc0 | (c >> 6);
        buffer[at++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        const point = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
        buffer[at++] = 0xf0 | (point >> 18);
        buffer[at++] = 0x80 | ((point >> 12) & 0x3f);
        buffer[at++] = 0x80 | ((point >> 6) & 0x3f);
        buffer[at++] = 0x80 | (point & 0x3f);
      } else {
        buffer[at++] = 0xe0 | (c >> 12);
        buffer[at++] = 0x80 | ((c >> 6) & 0x3f);
        buffer[at++] = 0x80 | (c & 0x3f);
      }
    }
    this.length = at;
  }
}

const AMP = [0x26, 0x61, 0x6d, 0x70, 0x3b];
const LT = [0x26, 0x6c, 0x74, 0x3b];
const GT = [0x26, 0x67, 0x74, 0x3b];

function put(buffer: Buffer, at: number, bytes: readonly number[]): number {
  for (const byte of bytes) buffer[at++] = byte;
  return at;
}

/** Excel's last row (1,048,576): a sheet with more rows does not open. */
export const MAX_SHEET_ROWS = 1_048_576;

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
/** Built-in number format 49 is `@`, text. */
const TEXT_FORMAT = 49;

// Fills: 0 and 1 are the two every styles part must start with; 2 red (failed), 3 amber.
// cellXfs: 0 the default, then RowLook's: text, bold text, text on red, text on amber.
const STYLES_XML =
  `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="4"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFF8CBAD"/><bgColor indexed="64"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFFFE699"/><bgColor indexed="64"/></patternFill></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  `<xf numFmtId="${TEXT_FORMAT}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
  `<xf numFmtId="${TEXT_FORMAT}" fontId="1" fillId="0" borderId="0" xfId="0" applyNumberFormat="1" applyFont="1"/>` +
  `<xf numFmtId="${TEXT_FORMAT}" fontId="0" fillId="2" borderId="0" xfId="0" applyNumberFormat="1" applyFill="1"/>` +
  `<xf numFmtId="${TEXT_FORMAT}" fontId="0" fillId="3" borderId="0" xfId="0" applyNumberFormat="1" applyFill="1"/></cellXfs>` +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

const XML_TEXT = /[&<>]/g;
const XML_ATTRIBUTE = /[&<>"]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeText = (text: string): string => text.replace(XML_TEXT, (c) => ENTITIES[c] as string);
const escapeAttribute = (text: string): string => text.replace(XML_ATTRIBUTE, (c) => ENTITIES[c] as string);
const LOOKS = Object.values(RowLook);
/** What follows a cell's reference: its look, and for a value the inline string's start. */
const CELL_OPEN: Readonly<Record<RowLook, string>> = Object.fromEntries(LOOKS.map((look) => [look, `" s="${look}" t="inlineStr"><is>`])) as Record<RowLook, string>;
const EMPTY_CELL: Readonly<Record<RowLook, string>> = Object.fromEntries(LOOKS.map((look) => [look, `" s="${look}"/>`])) as Record<RowLook, string>;
/** Leading or trailing whitespace, or a line break, which XML would otherwise let a reader drop. */
const NEEDS_PRESERVE = /^\s|\s$|\n/;

/** A column's width in characters: its header's length and some room, within 10..60. */
const widthOf = (header: string): number => Math.min(60, Math.max(10, header.length + 2));

/** A sheet's name as Excel allows it: at most 31 characters, none of `[]:*?/\`. */
function checkSheetName(name: string): void {
  if (name.length === 0 || name.length > 31 || /[[\]:*?/\\]/.test(name) || name.startsWith("'") || name.endsWith("'")) {
    throw new Error(`"${name}" cannot name an .xlsx sheet`);
  }
}

/** Raised when a sheet would get more rows than Excel opens. */
export class SheetFullError extends Error {
  constructor() {
    super(`an .xlsx sheet holds at most ${MAX_SHEET_ROWS.toLocaleString('en-US')} rows: write a report this large as .csv`);
  }
}

/**
 * One sheet being written: its header row first (it fixes the columns and their widths), then
 * rows, each `void` unless the caller must wait for the output (then a promise: await it).
 */
export class SheetWriter {
  private rows = 0;
  private width = 0;
  private readonly bytes = new RowBytes();
  /** `<c r="A`, `<c r="B`, ...: the start of each column's cells. */
  private letters: string[] = [];

  constructor(
    private readonly entry: ZipEntryStream,
    readonly name: string,
  ) {}

  get rowCount(): number {
    return this.rows;
  }

  /** The sheet's start, its columns and the header row (bold, frozen, with the filter). */
  header(cells: readonly string[]): void | Promise<void> {
    this.width = cells.length;
    this.letters = cells.map((_, i) => `<c r="${columnName(i + 1)}`);
    const cols = cells.map((cell, i) => `<col min="${i + 1}" max="${i + 1}" width="${widthOf(cell)}" style="${RowLook.plain}" customWidth="1"/>`).join('');
    const pending = this.entry.write(
      `${XML_DECLARATION}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
        '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
        '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>' +
        '<sheetFormatPr defaultRowHeight="15"/>' +
        (cells.length > 0 ? `<cols>${cols}</cols>` : '') +
        '<sheetData>',
    );
    if (pending !== undefined) return pending.then(() => this.row(cells, RowLook.header));
    return this.row(cells, RowLook.header);
  }

  /**
   * One row of text cells in `look`; an empty cell keeps the row's look but holds no value.
   * Encoded straight into bytes (RowBytes): a million rows make no strings but their numbers,
   * so the garbage collector has next to nothing to keep up with.
   */
  row(cells: readonly string[], look: RowLook): void | Promise<void> {
    if (this.rows === MAX_SHEET_ROWS) throw new SheetFullError();
    const r = ++this.rows;
    const number = String(r);
    const out = this.bytes;
    out.length = 0;
    out.ascii('<row r="');
    out.ascii(number);
    out.ascii('">');
    // Every cell has its reference: optional in SpreadsheetML, but some readers (exceljs) need it.
    const open = CELL_OPEN[look];
    const empty = EMPTY_CELL[look];
    for (let i = 0; i < cells.length; i++) {
      out.ascii(this.letters[i] ?? `<c r="${columnName(i + 1)}`);
      out.ascii(number);
      const value = cells[i] as string;
      if (value === '') {
        out.ascii(empty);
        continue;
      }
      const text = encodeXstring(value);
      out.ascii(open);
      out.ascii(NEEDS_PRESERVE.test(text) ? '<t xml:space="preserve">' : '<t>');
      out.xmlText(text);
      out.ascii('</t></is></c>');
    }
    out.ascii('</row>');
    return this.entry.writeBytes(out.buffer, out.length);
  }

  /** The end of the sheet: the filter over every written row, then the entry is closed. */
  async end(): Promise<string | undefined> {
    const last = `${columnName(this.width)}${this.rows}`;
    const range = this.width === 0 || this.rows === 0 ? undefined : last === 'A1' ? last : `A1:${last}`;
    await this.entry.write(`</sheetData>${range === undefined ? '' : `<autoFilter ref="${range}"/>`}<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`);
    await this.entry.end();
    return range;
  }
}

interface EndedSheet {
  name: string;
  filter: string | undefined;
}

/**
 * A workbook written onto `out`: `sheet(name)` opens the next sheet (the previous must be ended),
 * `finish()` writes the workbook part, the relationships and the content types and ends `out`.
 */
export class WorkbookWriter {
  private readonly zip: ZipWriter;
  private readonly ended: EndedSheet[] = [];
  private current: SheetWriter | undefined;
  private started = false;

  constructor(out: Writable) {
    this.zip = new ZipWriter(out);
  }

  async sheet(name: string): Promise<SheetWriter> {
    checkSheetName(name);
    if (this.current !== undefined) throw new Error('the previous sheet is not ended');
    if (this.ended.some((sheet) => sheet.name.toLowerCase() === name.toLowerCase())) throw new Error(`two sheets named "${name}"`);
    if (!this.started) {
      this.started = true;
      await this.zip.add('xl/styles.xml', STYLES_XML);
    }
    const entry = await this.zip.stream(`xl/worksheets/sheet${this.ended.length + 1}.xml`);
    this.current = new SheetWriter(entry, name);
    return this.current;
  }

  async endSheet(): Promise<void> {
    const sheet = this.current;
    if (sheet === undefined) throw new Error('no sheet is open');
    const filter = await sheet.end();
    this.current = undefined;
    this.ended.push({ name: sheet.name, filter });
  }

  async finish(): Promise<void> {
    if (this.current !== undefined) await this.endSheet();
    if (this.ended.length === 0) throw new Error('a workbook needs a sheet');
    const sheets = this.ended;
    const sheetList = sheets.map((sheet, i) => `<sheet name="${escapeAttribute(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
    // Excel keeps a filter's range also as this hidden name; without it some versions drop the filter buttons.
    const names = sheets
      .map((sheet, i) => (sheet.filter === undefined ? '' : `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">'${escapeText(sheet.name.replaceAll("'", "''"))}'!${absolute(sheet.filter)}</definedName>`))
      .join('');
    await this.zip.add(
      'xl/workbook.xml',
      `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView activeTab="0"/></bookViews>` +
        `<sheets>${sheetList}</sheets>${names === '' ? '' : `<definedNames>${names}</definedNames>`}</workbook>`,
    );
    const relationships = sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('');
    await this.zip.add(
      'xl/_rels/workbook.xml.rels',
      `${XML_DECLARATION}<Relationships xmlns="${PKG_REL_NS}">${relationships}<Relationship Id="rId${sheets.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`,
    );
    await this.zip.add('_rels/.rels', `${XML_DECLARATION}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
    const overrides = sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('');
    await this.zip.add(
      '[Content_Types].xml',
      `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        `${overrides}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
    );
    await this.zip.finish();
  }
}

/** `A1:K9` as `$A$1:$K$9`. */
function absolute(range: string): string {
  return range.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2');
}
