import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { InputRecord } from '../../src/input/record.js';
import { readXlsxRecords, type XlsxReadOptions } from '../../src/input/xlsx-reader.js';
import { ZipEntries } from '../../src/input/zip-entries.js';

export const xlsxFixture = (name: string): string =>
  fileURLToPath(new URL(`../../fixtures/xlsx/${name}`, import.meta.url));

/** A cell as the test writes it: a value, optionally with a number format. */
export type TestCell = ExcelJS.CellValue | { value: ExcelJS.CellValue; numFmt: string };

export interface TestSheet {
  name: string;
  /** Rows by sheet row number - 1; undefined leaves the row out (a blank row). */
  rows: (TestCell[] | undefined)[];
  state?: 'visible' | 'hidden';
  /** Ranges merged, e.g. `A2:A4`. */
  merges?: string[];
  /** Sheet row numbers hidden (as a filter or a hand hides them). */
  hiddenRows?: number[];
}

/** Writes a workbook with exceljs's in-memory writer (a second code path from the streaming report writer). */
export async function writeWorkbook(path: string, sheets: readonly TestSheet[]): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name, sheet.state === undefined ? {} : { state: sheet.state });
    sheet.rows.forEach((row, index) => {
      if (row === undefined) return;
      row.forEach((cell, column) => {
        if (cell === undefined) return;
        const target = worksheet.getCell(index + 1, column + 1);
        if (cell !== null && typeof cell === 'object' && 'numFmt' in cell && 'value' in cell) {
          target.value = cell.value;
          target.numFmt = cell.numFmt;
        } else {
          target.value = cell as ExcelJS.CellValue;
        }
      });
    });
    for (const range of sheet.merges ?? []) worksheet.mergeCells(range);
    for (const line of sheet.hiddenRows ?? []) worksheet.getRow(line).hidden = true;
  }
  await workbook.xlsx.writeFile(path);
}

export async function inTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'examctl-xlsx-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every record; unreadable cells fail their record (its `problems`). */
export async function readAll(path: string, options: XlsxReadOptions): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const record of readXlsxRecords(path, options)) records.push(record);
  return records;
}

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const ORACLE = fileURLToPath(new URL('../../scripts/xlsx-writer-oracle.py', import.meta.url));

/** Whether openpyxl (a reader nobody here wrote) can be asked: Debian's python3-openpyxl, or pip's. */
export const HAS_OPENPYXL = spawnSync(PYTHON, ['-c', 'import openpyxl']).status === 0;

/** One sheet as openpyxl reads it (scripts/xlsx-writer-oracle.py). */
export interface OracleSheet {
  name: string;
  rows: string[][];
  typed: ([string, string] | null)[][];
  /** The cells in the marked fill (a dry run's offending cells). */
  marked: string[];
  types: string[];
}

/** What openpyxl reads from `path`; undefined where openpyxl is not installed. */
export function openpyxl(path: string): OracleSheet[] | undefined {
  if (!HAS_OPENPYXL) return undefined;
  const run = spawnSync(PYTHON, [ORACLE, path], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`openpyxl could not read ${path}: ${run.stderr}`);
  return (JSON.parse(run.stdout) as Record<string, OracleSheet[]>)[path];
}

/** The first sheet of a workbook, as exceljs reads it. */
export async function firstSheet(path: string): Promise<ExcelJS.Worksheet> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  return book.worksheets[0] as ExcelJS.Worksheet;
}

/** A sheet as header -> cell for each data row. */
export function rowsByHeader(sheet: ExcelJS.Worksheet): Map<string, ExcelJS.Cell>[] {
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const rows: Map<string, ExcelJS.Cell>[] = [];
  for (let r = 2; r <= sheet.rowCount; r++)
    rows.push(new Map(header.map((name, i) => [name, sheet.getRow(r).getCell(i + 1)])));
  return rows;
}

/** A cell of an openpyxl-read sheet by row (0: the header) and header name: [type, text]. */
export function oracleCell(sheet: OracleSheet): (row: number, column: string) => [string, string] | null | undefined {
  const header = sheet.rows[0] ?? [];
  return (row, column) => sheet.typed[row]?.[header.indexOf(column)];
}

/** One entry of a zip (a workbook's part) as UTF-8 text. */
export async function zipEntryText(path: string, name: string): Promise<string> {
  const zip = await ZipEntries.open(path);
  const chunks: Buffer[] = [];
  for await (const chunk of zip.chunks(name, 1 << 30)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
