/** examctl's own .xlsx writer, each sheet streamed row by row: docs/input-formats.md, "The .xlsx run report". */
import type { Writable } from 'node:stream';
import { columnLetters, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS } from '../input/sheet-rows.js';
import { EXCEL_CELL_CHARS, encodeXstring } from '../formats/xstring.js';
import { ZipWriter, type ZipEntryStream } from './zip-writer.js';
import { formatCount } from '../formats/number-format.js';

/** How a row looks (its font and fill); `marked` is a cell's own look (a dry run's offending cell). */
export const RowLook = {
  plain: 0,
  header: 1,
  red: 2,
  amber: 3,
  marked: 4,
} as const;
export type RowLook = (typeof RowLook)[keyof typeof RowLook];
const LOOK_COUNT = 5;

/** How a column's cells are shown: a cell's style is 1 + format * LOOK_COUNT + look (cellXfs; 0 the default). */
export const CellFormat = {
  text: 0,
  general: 1,
  date: 2,
  dateTime: 3,
} as const;
export type CellFormat = (typeof CellFormat)[keyof typeof CellFormat];
const FORMAT_COUNT = 4;

const styleOf = (format: CellFormat, look: RowLook): number => 1 + format * LOOK_COUNT + look;

/** A date or date-time as Excel stores it: days since 1899-12-30 (the 1900 system), the time a fraction. */
export interface ExcelDate {
  readonly serial: number;
  /** Shown with its time of day (the date-time format), else as a date. */
  readonly time: boolean;
}

export type SheetCell = string | number | boolean | ExcelDate;

/** A note (a comment) on a cell of the row being written: its 0-based column and its text. */
export interface CellNote {
  readonly column: number;
  readonly text: string;
}

/** Notes kept a sheet (each is held until the sheet ends): past it, the cell is still marked. */
export const MAX_NOTES = 10_000;
/** A note's text is cut to this (a row's every error is in its error_messages cell whole). */
const MAX_NOTE_CHARS = 2_000;

/** A row's XML as UTF-8 in one reused buffer, cell text XML-escaped as it is copied (no escaped copy is made). */
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
    // At most 5 bytes per UTF-16 unit (`&amp;`).
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
      } else {
        // Past ASCII, Node's encoder takes the rest; the loop (most cells are ASCII) costs less than a Buffer.write a cell.
        at += buffer.write(escapeText(text.slice(i)), at, 'utf8');
        break;
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

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
/** Built-in number format 49 is `@`, text; 0 is General; 164 and 165 are the workbook's date and date-time formats. */
const TEXT_FORMAT = 49;
const DATE_FORMAT_ID = 164;
const DATE_TIME_FORMAT_ID = 165;
/** By CellFormat: text, General, date, date-time. */
const NUMBER_FORMAT_IDS = [TEXT_FORMAT, 0, DATE_FORMAT_ID, DATE_TIME_FORMAT_ID] as const;

/** The date formats of a workbook, as Excel number formats (output-times.ts, excelDateFormats). */
export interface WorkbookDateFormats {
  date: string;
  dateTime: string;
}

// Each RowLook's [font, fill]. Fonts: 0 regular, 1 bold, 2 bold white (on the strong red).
// Fills: 0 and 1 are the two every styles part must start with; 2 red (failed), 3 amber, 4 strong red (a marked cell).
const LOOK_FONT_FILL = [
  [0, 0],
  [1, 0],
  [0, 2],
  [0, 3],
  [2, 4],
] as const;

function stylesXml(formats: WorkbookDateFormats): string {
  const xfs: string[] = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'];
  for (let format = 0; format < FORMAT_COUNT; format++) {
    for (let look = 0; look < LOOK_COUNT; look++) {
      const [font, fill] = LOOK_FONT_FILL[look as RowLook];
      const numFmt = NUMBER_FORMAT_IDS[format as CellFormat];
      xfs.push(
        `<xf numFmtId="${numFmt}" fontId="${font}" fillId="${fill}" borderId="0" xfId="0"${numFmt === 0 ? '' : ' applyNumberFormat="1"'}${font === 0 ? '' : ' applyFont="1"'}${fill === 0 ? '' : ' applyFill="1"'}/>`,
      );
    }
  }
  return (
    `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">` +
    `<numFmts count="2"><numFmt numFmtId="${DATE_FORMAT_ID}" formatCode="${escapeAttribute(formats.date)}"/>` +
    `<numFmt numFmtId="${DATE_TIME_FORMAT_ID}" formatCode="${escapeAttribute(formats.dateTime)}"/></numFmts>` +
    '<fonts count="3"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
    '<font><b/><sz val="11"/><color rgb="FFFFFFFF"/><name val="Calibri"/><family val="2"/></font></fonts>' +
    '<fills count="5"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
    `${['FFF8CBAD', 'FFFFE699', MARKED_FILL].map((rgb) => `<fill><patternFill patternType="solid"><fgColor rgb="${rgb}"/><bgColor indexed="64"/></patternFill></fill>`).join('')}</fills>` +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    `<cellXfs count="${xfs.length}">${xfs.join('')}</cellXfs>` +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    '</styleSheet>'
  );
}

/** The strong fill of a marked cell (ARGB). */
const MARKED_FILL = 'FFC00000';

const XML_TEXT = /[&<>]/g;
const XML_ATTRIBUTE = /[&<>"]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeText = (text: string): string => text.replace(XML_TEXT, (c) => ENTITIES[c] as string);
const escapeAttribute = (text: string): string => text.replace(XML_ATTRIBUTE, (c) => ENTITIES[c] as string);
const LOOKS = Object.values(RowLook);
/** What follows a text cell's reference: its style, and for a value the inline string's start. */
const CELL_OPEN = LOOKS.map((look) => `" s="${styleOf(CellFormat.text, look)}" t="inlineStr"><is>`);
const EMPTY_CELL = LOOKS.map((look) => `" s="${styleOf(CellFormat.text, look)}"/>`);
/** Leading or trailing whitespace, or a line break, which XML would otherwise let a reader drop. */
const NEEDS_PRESERVE = /^\s|\s$|\n/;

/** A column's width: its header's length and some room, within 10..60 (a date-time column fits its value). */
const widthOf = (header: string, format: CellFormat): number =>
  Math.min(60, Math.max(format === CellFormat.dateTime ? 20 : format === CellFormat.date ? 12 : 10, header.length + 2));

/** A sheet's name as Excel allows it: at most 31 characters, none of `[]:*?/\`. */
function checkSheetName(name: string): void {
  if (name.length === 0 || name.length > 31 || /[[\]:*?/\\]/.test(name) || name.startsWith("'") || name.endsWith("'")) {
    throw new Error(`"${name}" cannot name an .xlsx sheet`);
  }
}

/** A row or column past Excel's last: callers refuse or cut before, so a bug said loudly, not a bad sheet. */
function pastSheetLimit(columns?: number): Error {
  if (columns === undefined)
    return new Error(
      `an .xlsx sheet holds at most ${formatCount(MAX_SHEET_ROWS)} rows: write a report this large as .csv`,
    );
  return new Error(
    `an .xlsx sheet holds at most ${formatCount(MAX_SHEET_COLUMNS)} columns (A to XFD), not ${formatCount(columns)}`,
  );
}

/** A text longer than a cell holds, cut with a visible marker of its length (never inside a surrogate pair). */
function cutToCell(text: string): string {
  const marker = `…[cut by examctl: ${formatCount(text.length)} characters, a cell holds ${formatCount(EXCEL_CELL_CHARS)}]`;
  let end = EXCEL_CELL_CHARS - marker.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + marker;
}

/** A cell of a sheet, `Name!C5`, for messages. */
export interface CellPlace {
  sheet: string;
  reference: string;
}

/** The cells cut to fit (WorkbookWriter.cutCells) in words, for the caller's warning; `whose` says what they held. */
export function cutCellsWords(cut: { count: number; first?: CellPlace }, whose = ''): string {
  const first = cut.first === undefined ? '' : ` (first: ${cut.first.sheet}!${cut.first.reference})`;
  return `${formatCount(cut.count)} cells${whose} longer than a cell holds (${formatCount(EXCEL_CELL_CHARS)} characters) were cut, each ending with "…[cut by examctl: ...]"${first}`;
}

/** One sheet being written: its header row first, then rows, each `void` unless the caller must wait (a promise). */
export class SheetWriter {
  private rows = 0;
  private width = 0;
  private readonly bytes = new RowBytes();
  /** `<c r="A`, `<c r="B`, ...: the start of each column's cells. */
  private letters: string[] = [];
  /** Cells cut to fit (cutToCell), and the first of them. */
  cutCells = 0;
  firstCut: string | undefined;
  /** The notes of the sheet (at most MAX_NOTES), by cell reference; and how many more were left out. */
  readonly notes: { reference: string; row: number; column: number; text: string }[] = [];
  notesLeftOut = 0;

  constructor(
    private readonly entry: ZipEntryStream,
    readonly name: string,
  ) {}

  /** The sheet's start, its columns (each in `formats[i]`, default text) and the bold, frozen, filtered header row. */
  header(
    cells: readonly string[],
    formats: readonly CellFormat[] = [],
    notes: readonly CellNote[] = [],
  ): void | Promise<void> {
    if (cells.length > MAX_SHEET_COLUMNS) throw pastSheetLimit(cells.length);
    for (const note of notes) this.note(note, 1);
    this.width = cells.length;
    this.letters = cells.map((_, i) => `<c r="${columnLetters(i + 1)}`);
    const cols = cells
      .map((cell, i) => {
        const format = formats[i] ?? CellFormat.text;
        return `<col min="${i + 1}" max="${i + 1}" width="${widthOf(cell, format)}" style="${styleOf(format, RowLook.plain)}" customWidth="1"/>`;
      })
      .join('');
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
   * One row in `look` (`marks`: cells in the marked look, each with its note unless its text is empty),
   * encoded straight into bytes: a million rows make no strings but their numbers.
   */
  row(cells: readonly SheetCell[], look: RowLook, marks?: readonly CellNote[]): void | Promise<void> {
    if (this.rows === MAX_SHEET_ROWS) throw pastSheetLimit();
    if (cells.length > MAX_SHEET_COLUMNS) throw pastSheetLimit(cells.length);
    const r = ++this.rows;
    const number = String(r);
    const out = this.bytes;
    out.length = 0;
    out.ascii('<row r="');
    out.ascii(number);
    out.ascii('">');
    for (let i = 0; i < cells.length; i++) {
      const cellLook = marks !== undefined && marks.some((mark) => mark.column === i) ? RowLook.marked : look;
      out.ascii(this.letters[i] ?? `<c r="${columnLetters(i + 1)}`);
      out.ascii(number);
      const value = cells[i] as SheetCell;
      if (typeof value === 'string') this.text(value, cellLook, i);
      else if (typeof value === 'number') {
        if (Number.isFinite(value))
          out.ascii(`" s="${styleOf(CellFormat.general, cellLook)}"><v>${String(value)}</v></c>`);
        else this.text(String(value), cellLook, i);
      } else if (typeof value === 'boolean')
        out.ascii(`" s="${styleOf(CellFormat.general, cellLook)}" t="b"><v>${value ? 1 : 0}</v></c>`);
      else if (Number.isFinite(value.serial))
        out.ascii(
          `" s="${styleOf(value.time ? CellFormat.dateTime : CellFormat.date, cellLook)}"><v>${String(value.serial)}</v></c>`,
        );
      else this.text('', cellLook, i);
    }
    out.ascii('</row>');
    if (marks !== undefined) for (const mark of marks) this.note(mark, r);
    return this.entry.writeBytes(out.buffer, out.length);
  }

  private text(value: string, look: RowLook, column: number): void {
    const out = this.bytes;
    if (value === '') {
      out.ascii(EMPTY_CELL[look] as string);
      return;
    }
    if (value.length > EXCEL_CELL_CHARS) {
      value = cutToCell(value);
      this.cutCells += 1;
      this.firstCut ??= `${columnLetters(column + 1)}${this.rows}`;
    }
    const text = encodeXstring(value);
    out.ascii(CELL_OPEN[look] as string);
    out.ascii(NEEDS_PRESERVE.test(text) ? '<t xml:space="preserve">' : '<t>');
    out.xmlText(text);
    out.ascii('</t></is></c>');
  }

  private note(mark: CellNote, row: number): void {
    if (mark.text === '') return;
    if (this.notes.length >= MAX_NOTES) {
      this.notesLeftOut += 1;
      return;
    }
    const text = mark.text.length > MAX_NOTE_CHARS ? `${mark.text.slice(0, MAX_NOTE_CHARS - 1)}…` : mark.text;
    this.notes.push({ reference: `${columnLetters(mark.column + 1)}${row}`, row: row - 1, column: mark.column, text });
  }

  /** The end of the sheet: the filter over every written row (and the notes' drawing), then the entry is closed. */
  async end(): Promise<string | undefined> {
    const last = `${columnLetters(this.width)}${this.rows}`;
    const range = this.width === 0 || this.rows === 0 ? undefined : last === 'A1' ? last : `A1:${last}`;
    await this.entry.write(
      `</sheetData>${range === undefined ? '' : `<autoFilter ref="${range}"/>`}` +
        '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
        `${this.notes.length > 0 ? `<legacyDrawing r:id="${VML_RELATIONSHIP}"/>` : ''}</worksheet>`,
    );
    await this.entry.end();
    return range;
  }
}

/** The relationship ids of a sheet's notes and their drawing (the sheet's own rels part). */
const COMMENTS_RELATIONSHIP = 'rId1';
const VML_RELATIONSHIP = 'rId2';
/** Shape ids come in blocks of 1024 (VML's o:idmap); each sheet takes enough blocks for MAX_NOTES. */
const BLOCKS_PER_SHEET = Math.ceil(MAX_NOTES / 1024);

/** A sheet's notes as the comments part that holds their text (ECMA-376 Part 1, 18.7). */
function commentsXml(notes: SheetWriter['notes']): string {
  const list = notes
    .map((note) => {
      const text = escapeText(encodeXstring(note.text));
      return `<comment ref="${note.reference}" authorId="0"><text><r><t xml:space="preserve">${text}</t></r></text></comment>`;
    })
    .join('');
  return `${XML_DECLARATION}<comments xmlns="${MAIN_NS}"><authors><author>examctl</author></authors><commentList>${list}</commentList></comments>`;
}

/** The legacy drawing Excel needs to show notes: one hidden box per note, anchored beside its cell. */
function notesVml(notes: SheetWriter['notes'], sheetNumber: number): string {
  const firstBlock = (sheetNumber - 1) * BLOCKS_PER_SHEET + 1;
  const blocks = Array.from({ length: Math.max(1, Math.ceil(notes.length / 1024)) }, (_, i) => firstBlock + i).join(
    ',',
  );
  const shapes = notes
    .map((note, i) => {
      const id = (firstBlock + Math.floor(i / 1024)) * 1024 + (i % 1024) + 1;
      return (
        `<v:shape id="_x0000_s${id}" type="#_x0000_t202" style="position:absolute;margin-left:59.25pt;margin-top:1.5pt;width:216pt;height:80pt;z-index:${i + 1};visibility:hidden" fillcolor="#ffffe1" o:insetmode="auto">` +
        '<v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/><v:path o:connecttype="none"/>' +
        '<v:textbox style="mso-direction-alt:auto"><div style="text-align:left"></div></v:textbox>' +
        `<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/><x:Anchor>${note.column + 1}, 15, ${note.row}, 10, ${note.column + 5}, 15, ${note.row + 5}, 4</x:Anchor>` +
        `<x:AutoFill>False</x:AutoFill><x:Row>${note.row}</x:Row><x:Column>${note.column}</x:Column></x:ClientData></v:shape>`
      );
    })
    .join('');
  return (
    '<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">' +
    `<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="${blocks}"/></o:shapelayout>` +
    '<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>' +
    `${shapes}</xml>`
  );
}

/** A workbook onto `out`: `sheet(name)` opens the next sheet (the previous ended), `finish()` writes the rest. */
export class WorkbookWriter {
  private readonly zip: ZipWriter;
  /** Each sheet ended: its name, its filter's range, whether it has notes. */
  private readonly ended: { name: string; filter: string | undefined; notes: boolean }[] = [];
  private current: SheetWriter | undefined;
  private started = false;
  private cut = 0;
  private firstCutAt: CellPlace | undefined;
  private notesOmitted = 0;

  constructor(
    out: Writable,
    private readonly dateFormats: WorkbookDateFormats,
    /** Custom document properties (File > Info > Properties > Advanced in Excel), name -> text. */
    private readonly properties: Readonly<Record<string, string>> = {},
  ) {
    this.zip = new ZipWriter(out);
  }

  /** Cells cut to fit so far (cutToCell), and the first one: the caller warns. */
  get cutCells(): { count: number; first?: CellPlace } {
    const open = this.current;
    const count = this.cut + (open?.cutCells ?? 0);
    const first =
      this.firstCutAt ?? (open?.firstCut === undefined ? undefined : { sheet: open.name, reference: open.firstCut });
    return first === undefined ? { count } : { count, first };
  }

  /** Notes left out past MAX_NOTES a sheet (their cells are marked all the same). */
  get notesLeftOut(): number {
    return this.notesOmitted + (this.current?.notesLeftOut ?? 0);
  }

  async sheet(name: string): Promise<SheetWriter> {
    checkSheetName(name);
    if (this.current !== undefined) throw new Error('the previous sheet is not ended');
    if (this.ended.some((sheet) => sheet.name.toLowerCase() === name.toLowerCase()))
      throw new Error(`two sheets named "${name}"`);
    if (!this.started) {
      this.started = true;
      await this.zip.add('xl/styles.xml', stylesXml(this.dateFormats));
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
    const number = this.ended.length + 1;
    this.ended.push({ name: sheet.name, filter, notes: sheet.notes.length > 0 });
    this.cut += sheet.cutCells;
    if (sheet.firstCut !== undefined) this.firstCutAt ??= { sheet: sheet.name, reference: sheet.firstCut };
    this.notesOmitted += sheet.notesLeftOut;
    if (sheet.notes.length > 0) {
      await this.zip.add(`xl/comments${number}.xml`, commentsXml(sheet.notes));
      await this.zip.add(`xl/drawings/vmlDrawing${number}.vml`, notesVml(sheet.notes, number));
      await this.zip.add(
        `xl/worksheets/_rels/sheet${number}.xml.rels`,
        `${XML_DECLARATION}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="${COMMENTS_RELATIONSHIP}" Type="${REL_NS}/comments" Target="../comments${number}.xml"/>` +
          `<Relationship Id="${VML_RELATIONSHIP}" Type="${REL_NS}/vmlDrawing" Target="../drawings/vmlDrawing${number}.vml"/></Relationships>`,
      );
    }
  }

  async finish(): Promise<void> {
    if (this.current !== undefined) await this.endSheet();
    if (this.ended.length === 0) throw new Error('a workbook needs a sheet');
    const sheets = this.ended;
    const sheetList = sheets
      .map((sheet, i) => `<sheet name="${escapeAttribute(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join('');
    // Excel keeps a filter's range also as this hidden name; without it some versions drop the filter buttons.
    const names = sheets
      .map((sheet, i) =>
        sheet.filter === undefined
          ? ''
          : `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">'${escapeText(sheet.name.replaceAll("'", "''"))}'!${absolute(sheet.filter)}</definedName>`,
      )
      .join('');
    await this.zip.add(
      'xl/workbook.xml',
      `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView activeTab="0"/></bookViews>` +
        `<sheets>${sheetList}</sheets>${names === '' ? '' : `<definedNames>${names}</definedNames>`}</workbook>`,
    );
    const relationships = sheets
      .map(
        (_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
      )
      .join('');
    await this.zip.add(
      'xl/_rels/workbook.xml.rels',
      `${XML_DECLARATION}<Relationships xmlns="${PKG_REL_NS}">${relationships}<Relationship Id="rId${sheets.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`,
    );
    const properties = Object.entries(this.properties);
    if (properties.length > 0) await this.zip.add('docProps/custom.xml', customPropertiesXml(properties));
    await this.zip.add(
      '_rels/.rels',
      `${XML_DECLARATION}<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/>` +
        `${properties.length > 0 ? `<Relationship Id="rId2" Type="${REL_NS}/custom-properties" Target="docProps/custom.xml"/>` : ''}</Relationships>`,
    );
    const override = (part: string, type: string) =>
      `<Override PartName="/${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}+xml"/>`;
    const sheetParts = sheets
      .map((_, i) => override(`xl/worksheets/sheet${i + 1}.xml`, 'spreadsheetml.worksheet'))
      .join('');
    const comments = sheets
      .map((sheet, i) => (sheet.notes ? override(`xl/comments${i + 1}.xml`, 'spreadsheetml.comments') : ''))
      .join('');
    await this.zip.add(
      '[Content_Types].xml',
      `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        (comments === ''
          ? ''
          : '<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing"/>') +
        `${override('xl/workbook.xml', 'spreadsheetml.sheet.main')}${sheetParts}${comments}${override('xl/styles.xml', 'spreadsheetml.styles')}` +
        `${properties.length > 0 ? override('docProps/custom.xml', 'custom-properties') : ''}</Types>`,
    );
    await this.zip.finish();
  }
}

/** Custom document properties (ECMA-376 Part 1, 22.3): texts with Office's user-defined format id, ids from 2. */
function customPropertiesXml(properties: readonly (readonly [string, string])[]): string {
  const list = properties
    .map(
      ([name, value], i) =>
        `<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="${i + 2}" name="${escapeAttribute(name)}"><vt:lpwstr>${escapeText(encodeXstring(value))}</vt:lpwstr></property>`,
    )
    .join('');
  return `${XML_DECLARATION}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">${list}</Properties>`;
}

/** `A1:K9` as `$A$1:$K$9`. */
function absolute(range: string): string {
  return range.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2');
}
