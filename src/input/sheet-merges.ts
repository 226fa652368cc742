/**
 * Merged cells of a worksheet: which are read on every row they cover (docs/input-formats.md,
 * ".xlsx", "Merged cells"). The `<mergeCells>` list comes after `<sheetData>` in the part, so it
 * is found before the rows are read, by a scan of the part's bytes that never tokenizes the
 * rows: only the text after `</sheetData>` is read as XML, and it is small.
 */
import { XmlLimitError } from './workbook-xml.js';
import { columnOf, type ParsedRow, type SheetCell } from './sheet-rows.js';

export interface VerticalMerge {
  /** 1-based column (A = 1). */
  column: number;
  /** The first and last sheet rows of the range. */
  top: number;
  bottom: number;
}

const SHEET_DATA_END = Buffer.from('sheetData>', 'latin1');
/** Bytes kept from a chunk's end so a tag split between two chunks is found whole. */
const OVERLAP = 64;
const MERGE_CELL = /<(?:[A-Za-z_][\w.-]*:)?mergeCell\b([^>]*)>/g;
const REF = /\bref\s*=\s*(["'])\s*([A-Za-z]{1,3})([0-9]{1,7})\s*:\s*([A-Za-z]{1,3})([0-9]{1,7})\s*\1/;

/** Whether `</sheetData>` (any prefix) ends at `at + SHEET_DATA_END.length` in `bytes`. */
function closesSheetData(bytes: Buffer, at: number): boolean {
  let i = at - 1;
  if (bytes[i] === 0x3a /* : */) {
    while (i > 0 && bytes[i - 1] !== 0x3c && bytes[i - 1] !== 0x2f && bytes[i - 1] !== 0x3e) i--;
    i--;
  }
  return bytes[i] === 0x2f /* / */ && bytes[i - 1] === 0x3c /* < */;
}

/**
 * The vertical merges of a sheet part, read from its chunks. What follows the rows is read up to
 * `tailLimit` bytes (a workbook's small-part limit): a longer tail is refused as one.
 */
export async function verticalMerges(chunks: AsyncIterable<Buffer>, tailLimit: number): Promise<VerticalMerge[]> {
  let carry: Buffer = Buffer.alloc(0);
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let inTail = false;
  for await (const chunk of chunks) {
    if (inTail) {
      tail.push(chunk);
      tailBytes += chunk.length;
    } else {
      const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      let at = bytes.indexOf(SHEET_DATA_END);
      while (at !== -1 && !closesSheetData(bytes, at)) at = bytes.indexOf(SHEET_DATA_END, at + 1);
      if (at === -1) {
        carry = bytes.subarray(Math.max(0, bytes.length - OVERLAP));
        continue;
      }
      inTail = true;
      const rest = bytes.subarray(at + SHEET_DATA_END.length);
      tail.push(rest);
      tailBytes += rest.length;
    }
    if (tailBytes > tailLimit)
      throw new XmlLimitError(
        `the worksheet holds over ${tailLimit.toLocaleString('en-US')} bytes after its rows (merged cells, filters, settings), more than examctl reads`,
      );
  }
  const merges: VerticalMerge[] = [];
  for (const match of Buffer.concat(tail).toString('utf8').matchAll(MERGE_CELL)) {
    const ref = REF.exec(match[1] as string);
    if (ref === null) continue;
    const [first, last] = [ref[2] as string, ref[4] as string];
    const column = columnOf(first, 0, first.length);
    const [top, bottom] = [Number(ref[3]), Number(ref[5])].sort((a, b) => a - b) as [number, number];
    if (column === columnOf(last, 0, last.length) && bottom > top) merges.push({ column, top, bottom });
  }
  return merges;
}

/**
 * Carries the top cell of each vertical merge down the rows it covers, as rows stream by in
 * order. Only merges below the header are carried: a header cell is never a value.
 */
export class MergedColumns {
  private readonly byTop = new Map<number, VerticalMerge[]>();
  private active: { merge: VerticalMerge; cell: SheetCell }[] = [];

  constructor(merges: readonly VerticalMerge[], headerLine: number) {
    for (const merge of merges) {
      if (merge.top <= headerLine) continue;
      const list = this.byTop.get(merge.top);
      if (list === undefined) this.byTop.set(merge.top, [merge]);
      else list.push(merge);
    }
  }

  /**
   * The row's cells with each covering merge's top cell in its column (the value the sheet
   * shows there), and the columns so filled: they do not make an otherwise blank row a record.
   */
  fill(row: ParsedRow): { cells: SheetCell[]; copied: ReadonlySet<number> | undefined } {
    const line = row.line;
    if (this.active.length > 0) this.active = this.active.filter(({ merge }) => merge.bottom >= line);
    for (const merge of this.byTop.get(line) ?? []) {
      const cell = row.cells.find((candidate) => candidate.column === merge.column);
      if (cell !== undefined) this.active.push({ merge, cell });
    }
    const covering = this.active.filter(({ merge }) => merge.top < line);
    if (covering.length === 0) return { cells: row.cells, copied: undefined };
    const columns = new Set(covering.map(({ merge }) => merge.column));
    const cells = row.cells.filter((cell) => !columns.has(cell.column));
    for (const { merge, cell } of covering) cells.push({ ...cell, column: merge.column });
    return { cells, copied: columns };
  }
}
