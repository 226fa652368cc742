// Real producers' workbooks (fixtures/xlsx/producers, README.md there: origin and licence of
// each) read by examctl and compared cell by cell with the values openpyxl recorded
// (openpyxl-values.json, written once by `node scripts/test-interop.mjs --record-xlsx-corpus`).
// Every cell is equal, or differs by one of the documented decisions below, each checked exactly.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chooseSheet, openWorkbook, XLSX_LIMITS } from '../../src/input/xlsx-reader.js';
import { readCell, serialDate } from '../../src/input/xlsx-cells.js';
import { columnLetters, sheetRowBatches } from '../../src/input/sheet-rows.js';

const DIR = fileURLToPath(new URL('../../fixtures/xlsx/producers/', import.meta.url));

type OracleCell = { text: string } | { error: string } | { timedelta: number } | { other: string };
interface OracleFile {
  oracleError?: string;
  sheet?: string;
  date1904?: boolean;
  cells?: Record<string, OracleCell>;
}
/** One cell of a sheet as examctl reads it where no field is known: its text, or why it cannot be used. */
interface SheetCellReading {
  /** A1-style reference. */
  ref: string;
  text?: string;
  problem?: string;
}

/** Every non-empty cell of the first visible sheet as the reader reads it before any header is applied. */
async function readSheetCells(path: string): Promise<{ sheet: string; cells: SheetCellReading[] }> {
  const workbook = await openWorkbook(path, path, XLSX_LIMITS);
  const sheet = chooseSheet(workbook.sheets, undefined, path);
  const cells: SheetCellReading[] = [];
  for await (const batch of sheetRowBatches(
    workbook.zip.chunks(sheet.part as string, XLSX_LIMITS.sheetBytes),
    workbook.strings,
    workbook.formats,
  )) {
    for (const row of batch) {
      for (const cell of row.cells) {
        const reading = readCell(cell.value, cell.numFmt, { field: undefined, date1904: workbook.date1904 });
        const ref = `${columnLetters(cell.column)}${row.line}`;
        if ('problem' in reading) cells.push({ ref, problem: reading.problem });
        else if (reading.text !== '') cells.push({ ref, text: reading.text });
      }
    }
  }
  return { sheet: sheet.name, cells };
}

const oracle = JSON.parse(readFileSync(join(DIR, 'openpyxl-values.json'), 'utf8')) as {
  files: Record<string, OracleFile>;
};

/** The text examctl gives a date serial where no field reads it (xlsx-cells.ts dateCell). */
function serialText(serial: number, date1904: boolean): string {
  const date = serialDate(serial, date1904) as Date;
  const iso = new Date(Math.round(date.getTime() / 1000) * 1000).toISOString().slice(0, 19);
  return iso.endsWith('T00:00:00') ? iso.slice(0, 10) : iso;
}

/**
 * Where examctl and openpyxl 3.0.9 read a cell differently, and examctl is the one that reads it
 * as Excel shows it. Each returns true only for the exact value examctl must give.
 */
const DECISIONS: {
  why: string;
  holds: (mine: SheetCellReading, theirs: OracleCell | undefined, date1904: boolean) => boolean;
}[] = [
  {
    // LibreOffice writes format codes in upper case (YY, DD, [HH]); Excel and LibreOffice show
    // such a cell as a date or time, openpyxl 3.0.9 gives the bare number (or a timedelta).
    why: 'a number with an upper-case date format is a date',
    holds: (mine, theirs, date1904) =>
      theirs !== undefined &&
      (('text' in theirs &&
        /^-?\d+(\.\d+)?$/.test(theirs.text) &&
        mine.text === serialText(Number(theirs.text), date1904)) ||
        ('timedelta' in theirs && mine.text === serialText(theirs.timedelta / 86_400, date1904))),
  },
  {
    // Excel decodes _xHHHH_ escapes in either case; openpyxl 3.0.9 only in upper case.
    why: 'a lower-case _x000d_ escape is a CR',
    holds: (mine, theirs) =>
      theirs !== undefined && 'text' in theirs && mine.text === theirs.text.replace(/_x000d_/g, '\r'),
  },
  {
    // A formula saved without its result: openpyxl reads an empty cell, examctl refuses the cell
    // (its record fails) rather than send nothing where the sheet shows a value.
    why: 'a formula never calculated is refused, not read as empty',
    holds: (mine, theirs) =>
      theirs === undefined && mine.problem?.startsWith('the cell is a formula with no saved result') === true,
  },
  {
    // A cell in a format of a time alone: examctl reads the time it shows (a map file's `{date} {time}`
    // joins it to a date), openpyxl a datetime on Excel's day 0; to the second, within one (float noise).
    why: 'a time alone, read as the time shown',
    holds: (mine, theirs) => {
      if (
        theirs === undefined ||
        !('text' in theirs) ||
        mine.text === undefined ||
        !/^\d\d:\d\d(:\d\d)?$/.test(mine.text)
      )
        return false;
      // openpyxl's oracle writes day 0 at midnight as the date alone.
      const match = /^1899-12-30(?:T(\d\d:\d\d:\d\d))?$/.exec(theirs.text);
      const seconds = (time: string) =>
        time.split(':').reduce((sum, part) => sum * 60 + Number(part), 0) * (time.length === 5 ? 60 : 1);
      return match !== null && Math.abs(seconds(mine.text) - seconds(match[1] ?? '00:00:00')) <= 1;
    },
  },
  {
    // A serial's float noise: examctl rounds to the nearest second, openpyxl may land one second off.
    why: 'a time of day within one second',
    holds: (mine, theirs) =>
      theirs !== undefined &&
      'text' in theirs &&
      mine.text !== undefined &&
      /T\d\d:\d\d:\d\d$/.test(theirs.text) &&
      Math.abs(Date.parse(`${mine.text}Z`) - Date.parse(`${theirs.text}Z`)) === 1000,
  },
];

const files = readdirSync(DIR).filter((name) => name.endsWith('.xlsx'));

describe("real producers' workbooks read as openpyxl reads them", () => {
  it('the corpus holds a few dozen files, among them an Excel 2013+ workbook in the 1904 date system', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(oracle.files['sheetjs-1904_1904.xlsx']?.date1904).toBe(true);
  });

  it.each(files.filter((name) => oracle.files[name]?.oracleError === undefined))('%s', async (name) => {
    const expected = oracle.files[name] as Required<OracleFile>;
    const read = await readSheetCells(join(DIR, name));
    expect(read.sheet).toBe(expected.sheet);
    const mine = new Map(read.cells.map((cell) => [cell.ref, cell]));
    const differences: string[] = [];
    for (const ref of new Set([...mine.keys(), ...Object.keys(expected.cells)])) {
      const cell = mine.get(ref) ?? { ref };
      const theirs = expected.cells[ref];
      if (theirs !== undefined && 'text' in theirs && cell.text === theirs.text) continue;
      if (theirs !== undefined && 'error' in theirs && cell.problem?.includes(theirs.error)) continue;
      if (DECISIONS.some((decision) => decision.holds(cell, theirs, expected.date1904))) continue;
      differences.push(`${ref}: examctl ${JSON.stringify(cell)}, openpyxl ${JSON.stringify(theirs)}`);
    }
    expect(differences).toEqual([]);
  });

  it('the Excel 2013+ 1904 workbook (x15:workbookPr after workbookPr) gives 1904-based dates', async () => {
    const read = await readSheetCells(join(DIR, 'sheetjs-1904_1904.xlsx'));
    const theirs = oracle.files['sheetjs-1904_1904.xlsx']?.cells ?? {};
    const dates = read.cells.filter((cell) => /^\d{4}-\d\d-\d\d/.test(cell.text ?? ''));
    expect(dates.length).toBeGreaterThan(0);
    for (const cell of dates) expect(theirs[cell.ref]).toEqual({ text: cell.text });
  });
});
