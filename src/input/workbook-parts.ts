/**
 * The small parts of an .xlsx workbook that say how to read a sheet: the relationships, workbook.xml (tabs,
 * their state, the date system), the shared strings and the styles, each read by workbook-xml.ts.
 */
import { partHandler, readXmlPart, XmlLimitError, type XmlAttributes } from './workbook-xml.js';
import { decodeXstring, EXCEL_CELL_CHARS } from '../formats/xstring.js';

interface Relationship {
  id: string;
  /** The target as written (relative to the part's folder, or absolute from the root with a leading /). */
  target: string;
  type: string;
  external: boolean;
}

export async function readRelationships(chunks: AsyncIterable<Buffer>): Promise<Relationship[]> {
  const relationships: Relationship[] = [];
  const handler = partHandler({
    open(name, attributes) {
      if (name !== 'Relationship') return;
      relationships.push({
        id: attributes.get('Id') ?? '',
        target: attributes.get('Target') ?? '',
        type: attributes.get('Type') ?? '',
        external: attributes.get('TargetMode') === 'External',
      });
    },
  });
  await readXmlPart(chunks, handler);
  return relationships;
}

/** A relationship's type, whatever the namespace (transitional or strict OOXML). */
export function relationshipIs(relationship: Relationship, kind: string): boolean {
  return relationship.type.endsWith(`/${kind}`);
}

/** A relationship target of the part `from` (xl/workbook.xml) as a zip entry name. */
export function resolvePartName(from: string, target: string): string {
  const parts = target.startsWith('/') ? [] : from.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

/** Where the relationships of a part are stored: xl/workbook.xml -> xl/_rels/workbook.xml.rels. */
export function relationshipsPartOf(part: string): string {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

interface WorkbookSheet {
  name: string;
  /** visible, hidden or veryHidden. */
  state: string;
  relationshipId: string;
}

/** An XML boolean attribute that is true (`1` or `true`). */
export function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/**
 * The tabs and the date system of workbook.xml. Only the main namespace's `workbookPr`, a child of the root
 * (depth 2), sets the date system: Excel 2013+ writes an `<x15:workbookPr>` inside `extLst` that must not reset it.
 */
export async function readWorkbookInfo(chunks: AsyncIterable<Buffer>) {
  const sheets: WorkbookSheet[] = [];
  // date1904: serial numbers count days from 1904-01-01 (old Mac Excel) instead of 1899-12-30.
  const info = { sheets, date1904: false };
  let depth = 0;
  let sheetsDepth = 0;
  const handler = partHandler({
    open(name, attributes) {
      depth++;
      if (depth === 2 && name === 'workbookPr') info.date1904 = isTrue(attributes.get('date1904'));
      else if (depth === 2 && name === 'sheets') sheetsDepth = depth;
      else if (name === 'sheet' && sheetsDepth !== 0 && depth === sheetsDepth + 1) {
        info.sheets.push({
          name: attributes.get('name') ?? '',
          state: attributes.get('state') ?? 'visible',
          relationshipId: attributes.get('id') ?? '',
        });
      }
    },
    close() {
      if (depth === sheetsDepth) sheetsDepth = 0;
      depth--;
    },
  });
  await readXmlPart(chunks, handler);
  return info;
}

/** A copy of `text` that does not keep its chunk alive (V8 makes a slice of 13+ characters a view into its parent). */
function detached(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** Longest text of one cell or shared string read (Excel's own limit is EXCEL_CELL_CHARS). */
export const MAX_CELL_CHARS = 1 << 20;

/**
 * The shared strings table: one text per `<si>`, rich-text runs joined, phonetic runs left out, `_xHHHH_` decoded;
 * at most `maxStrings` (each costs memory for the whole read).
 */
export async function readSharedStrings(chunks: AsyncIterable<Buffer>, maxStrings: number): Promise<string[]> {
  const strings: string[] = [];
  let inItem = false;
  let phonetic = 0;
  let current = '';
  const handler = partHandler({
    open(name) {
      if (name === 'si') {
        inItem = true;
        current = '';
      } else if (name === 'rPh') phonetic++;
      else if (name === 't' && inItem && phonetic === 0) handler.wantsText = true;
    },
    close(name) {
      if (name === 't') handler.wantsText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') {
        inItem = false;
        if (strings.length >= maxStrings) {
          throw new XmlLimitError(
            `the shared strings table holds over ${maxStrings.toLocaleString('en-US')} texts, more than examctl reads`,
          );
        }
        strings.push(detached(decodeXstring(current)));
      }
    },
    text(text) {
      current += text;
      if (current.length > MAX_CELL_CHARS)
        throw new XmlLimitError(
          `shared string ${strings.length} is over ${MAX_CELL_CHARS.toLocaleString('en-US')} characters (a cell holds at most ${EXCEL_CELL_CHARS.toLocaleString('en-US')})`,
        );
    },
  });
  await readXmlPart(chunks, handler);
  return strings;
}

/** The number formats Excel does not write out (ECMA-376 18.8.30), by id. */
const BUILT_IN_FORMATS: ReadonlyMap<number, string> = new Map([
  [0, 'General'],
  [1, '0'],
  [2, '0.00'],
  [3, '#,##0'],
  [4, '#,##0.00'],
  [9, '0%'],
  [10, '0.00%'],
  [11, '0.00E+00'],
  [12, '# ?/?'],
  [13, '# ??/??'],
  [14, 'mm-dd-yy'],
  [15, 'd-mmm-yy'],
  [16, 'd-mmm'],
  [17, 'mmm-yy'],
  [18, 'h:mm AM/PM'],
  [19, 'h:mm:ss AM/PM'],
  [20, 'h:mm'],
  [21, 'h:mm:ss'],
  [22, 'm/d/yy h:mm'],
  [37, '#,##0 ;(#,##0)'],
  [38, '#,##0 ;[Red](#,##0)'],
  [39, '#,##0.00;(#,##0.00)'],
  [40, '#,##0.00;[Red](#,##0.00)'],
  [45, 'mm:ss'],
  [46, '[h]:mm:ss'],
  [47, 'mmss.0'],
  [48, '##0.0E+0'],
  [49, '@'],
  // The East Asian locales' built-in dates and times (27-36, 50-58): dates whatever the locale.
  ...[27, 28, 29, 30, 31, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58].map((id): [number, string] => [id, 'yyyy-mm-dd']),
  ...[32, 33, 34, 35].map((id): [number, string] => [id, 'h:mm:ss']),
]);

/** The number format code of each cell style (`s` of a cell), by index; undefined is General. */
export type CellFormats = readonly (string | undefined)[];

export async function readCellFormats(chunks: AsyncIterable<Buffer>): Promise<CellFormats> {
  const custom = new Map<number, string>();
  const formatIds: number[] = [];
  let inNumFmts = false;
  let inCellXfs = false;
  const handler = partHandler({
    open(name, attributes: XmlAttributes) {
      if (name === 'numFmts') inNumFmts = true;
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'numFmt' && inNumFmts)
        custom.set(Number(attributes.get('numFmtId')), attributes.get('formatCode') ?? '');
      else if (name === 'xf' && inCellXfs) formatIds.push(Number(attributes.get('numFmtId') ?? '0'));
    },
    close(name) {
      if (name === 'numFmts') inNumFmts = false;
      else if (name === 'cellXfs') inCellXfs = false;
    },
  });
  await readXmlPart(chunks, handler);
  return formatIds.map((id) => custom.get(id) ?? BUILT_IN_FORMATS.get(id));
}
