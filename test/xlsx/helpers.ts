import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import type { InputRecord } from '../../src/input/record.js';
import { readXlsxRecords, type XlsxReadOptions } from '../../src/input/xlsx-reader.js';

export const xlsxFixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/xlsx/${name}`, import.meta.url));

/** A cell as the test writes it: a value, optionally with a number format. */
export type TestCell = ExcelJS.CellValue | { value: ExcelJS.CellValue; numFmt: string };

export interface TestSheet {
  name: string;
  /** Rows by sheet row number - 1; undefined leaves the row out (a blank row). */
  rows: (TestCell[] | undefined)[];
  state?: 'visible' | 'hidden';
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

/** Every record; unreadable cells fail their record (`cellProblems: 'record'`) unless the test says otherwise. */
export async function readAll(path: string, options: XlsxReadOptions): Promise<InputRecord[]> {
  const records: InputRecord[] = [];
  for await (const record of readXlsxRecords(path, { cellProblems: 'record', ...options })) records.push(record);
  return records;
}
