import { describe, expect, it } from 'vitest';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { RunReportBuilder } from '../../src/report/report-writers.js';
import { XlsxReportWriter } from '../../src/report/xlsx-report-writer.js';
import { MAX_NOTES, RowLook, WorkbookWriter } from '../../src/report/xlsx-workbook.js';
import { ZipWriter } from '../../src/report/zip-writer.js';
import { excelDateFormats } from '../../src/report/output-times.js';
import { inTempDir, readAll, zipEntryText } from './helpers.js';

/** A file stream, and a promise of its close. */
function fileStream(path: string): { stream: Writable; closed: Promise<void> } {
  const stream = createWriteStream(path);
  return { stream, closed: new Promise<void>((resolve) => stream.on('close', () => resolve())) };
}

describe("examctl's zip writer", () => {
  it('a streamed entry of many pieces, a text longer than the buffer and characters cut at no boundary read back exactly (CRC checked)', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'a.zip');
      const { stream, closed } = fileStream(path);
      const zip = new ZipWriter(stream);
      await zip.add('small.txt', 'hello');
      const entry = await zip.stream('big.txt');
      const parts = [];
      for (let i = 0; i < 20_000; i++) parts.push(`row ${i}: Zoë Ødegård 😀 ${'x'.repeat(i % 50)}\n`);
      // 300,000 characters of 4-byte UTF-8 pairs in one write: longer than the 320 KiB buffer.
      parts.push('😀'.repeat(150_000));
      for (const part of parts) await entry.write(part);
      await entry.end();
      await zip.add('after.txt', 'after');
      await zip.finish();
      await closed;
      expect(await zipEntryText(path, 'big.txt')).toBe(parts.join(''));
      expect(await zipEntryText(path, 'small.txt')).toBe('hello');
      expect(await zipEntryText(path, 'after.txt')).toBe('after');
    });
  });

  it('an entry must be ended before the next one or the end of the archive', async () => {
    const zip = new ZipWriter(new Writable({ write: (_chunk, _encoding, done) => done() }));
    await zip.stream('open.txt');
    await expect(zip.add('next.txt', 'x')).rejects.toThrow('a zip entry is still being written');
    await expect(zip.finish()).rejects.toThrow('a zip entry is still being written');
  });
});

describe('back-pressure: the report waits for its file', () => {
  it('while the file takes nothing, rows wait after at most two pieces, and go on once it drains', async () => {
    let accepted = 0;
    const held: (() => void)[] = [];
    // A disk that stops: every write is held until the test lets it go.
    const stream = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, done) {
        accepted += chunk.length;
        held.push(() => done());
      },
    });
    const writer = new XlsxReportWriter(stream);
    const builder = new RunReportBuilder([writer]);
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    let settled = true;
    let rows = 0;
    // Rows until one waits and stays waiting (a first row may wait for the sheet's start, which the stream's buffer takes).
    while (settled && rows < 100_000) {
      rows++;
      const pending = builder.add({
        item: {
          source: { file: 'u.csv', line: rows + 1 },
          id: `u-${rows}`,
          status: rows % 7 === 0 ? 'failed' : 'ok',
          errors: [],
        },
        rows: [
          {
            line: rows + 1,
            header: ['ExternalId', 'FirstName', 'Company'],
            cells: [`u-${rows}`, 'Ann', `Company number ${rows} with a long name`],
          },
        ],
      });
      if (pending === undefined) continue;
      settled = false;
      void pending.then(() => (settled = true));
      await turn();
    }
    expect(settled).toBe(false);
    // Not the whole report in memory: the rows written so far fit in the deflater's pieces.
    expect(rows).toBeLessThan(20_000);
    expect(accepted).toBeLessThan(256 * 1024);
    while (!settled) {
      held.splice(0).forEach((release) => release());
      await turn();
    }
    expect(settled).toBe(true);
    const finishing = builder.finish();
    let finished = false;
    void finishing.then(() => (finished = true));
    while (!finished) {
      held.splice(0).forEach((release) => release());
      await turn();
    }
    await finishing;
  });

  it('a stream that fails makes the waiting row fail, not hang', async () => {
    const stream = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        done(new Error('disk full'));
      },
    });
    stream.on('error', () => undefined);
    const writer = new XlsxReportWriter(stream);
    const add = async (): Promise<void> => {
      for (let i = 1; i < 100_000; i++) {
        await writer.item({
          item: { source: { file: 'u.csv', line: i + 1 }, id: `u-${i}`, status: 'ok', errors: [] },
          rows: [
            { line: i + 1, header: ['ExternalId', 'Company'], cells: [`u-${i}`, `Company ${i} ${'x'.repeat(40)}`] },
          ],
        });
      }
    };
    await expect(add()).rejects.toThrow(/disk full|closed before the workbook was complete/);
  });
});

describe('the workbook parts', () => {
  it('a frozen header, the filter over every row, text columns, fills by look, one styles part; read back by examctl', async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'w.xlsx');
      const { stream, closed } = fileStream(path);
      const workbook = new WorkbookWriter(stream, excelDateFormats(undefined));
      const sheet = await workbook.sheet('Report');
      await sheet.header(['ExternalId', 'Phone', 'Note']);
      await sheet.row(['00123', '+49 30 1234567', ' a <b> & "c" '], RowLook.plain);
      await sheet.row(['u-2', '', 'two\nlines'], RowLook.red);
      await sheet.row(['u-3', '1E5', '日本 € ü 😀 &amp;'], RowLook.amber);
      await workbook.finish();
      await closed;
      const xml = await zipEntryText(path, 'xl/worksheets/sheet1.xml');
      expect(xml).toContain('<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>');
      expect(xml).toContain('<autoFilter ref="A1:C4"/>');
      expect(xml).toContain('<col min="1" max="1" width="12" style="1" customWidth="1"/>');
      expect(xml).toContain('<row r="3"><c r="A3" s="3" t="inlineStr"><is><t>u-2</t></is></c><c r="B3" s="3"/>');
      expect(xml).toContain('<t xml:space="preserve"> a &lt;b&gt; &amp; "c" </t>');
      expect(await zipEntryText(path, 'xl/workbook.xml')).toContain(
        `<definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'Report'!$A$1:$C$4</definedName>`,
      );
      const styles = await zipEntryText(path, 'xl/styles.xml');
      expect(styles).toContain('<fgColor rgb="FFF8CBAD"/>');
      expect(styles).toContain('<fgColor rgb="FFFFE699"/>');
      // Text in each look: plain, header, red, amber, marked.
      expect(styles.match(/numFmtId="49"/g)).toHaveLength(5);
      const back = await readAll(path, {
        columns: ['ExternalId', 'Phone', 'Note'].map((name) => ({ name, kind: 'string' as const })),
      });
      expect(back.map((record) => record.raw?.cells)).toEqual([
        ['00123', '+49 30 1234567', 'a <b> & "c"'],
        ['u-2', '', 'two\nlines'],
        ['u-3', '1E5', '日本 € ü 😀 &amp;'],
      ]);
      expect((await readFile(path)).subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    });
  });

  it("a marked cell's note is an Excel comment on that cell, on every sheet; past MAX_NOTES a sheet the cell is marked without one, counted", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, 'notes.xlsx');
      const { stream, closed } = fileStream(path);
      const workbook = new WorkbookWriter(stream, excelDateFormats(undefined));
      const first = await workbook.sheet('Report');
      await first.header(['ExternalId', 'Email'], [], [{ column: 1, text: 'the address mail goes to' }]);
      await first.row(['u-1', 'not-an-address'], RowLook.red, [
        { column: 1, text: '209 Email: Email is not a valid address' },
      ]);
      // With the header's and the first row's: one note more than a sheet keeps.
      for (let i = 0; i < MAX_NOTES - 1; i++)
        await first.row([`u-${i + 2}`, 'x'], RowLook.red, [{ column: 1, text: `note ${i}` }]);
      expect(workbook.notesLeftOut).toBe(1);
      await workbook.endSheet();
      const second = await workbook.sheet('Other');
      await second.header(['Id']);
      await second.row(['v-1'], RowLook.red, [{ column: 0, text: '219 ExternalId: bad id\nsecond line' }]);
      await workbook.finish();
      await closed;
      const ExcelJS = (await import('exceljs')).default;
      const read = new ExcelJS.Workbook();
      await read.xlsx.readFile(path);
      const noteOf = (sheet: string, cell: string): string | undefined => {
        const note = read.getWorksheet(sheet)?.getCell(cell).note;
        return note === undefined || typeof note === 'string' ? note : note.texts?.map((run) => run.text).join('');
      };
      expect(noteOf('Report', 'B1')).toBe('the address mail goes to');
      expect(noteOf('Report', 'B2')).toBe('209 Email: Email is not a valid address');
      expect(noteOf('Report', 'A2')).toBeUndefined();
      // The 10,000th note is the last kept: the next marked cell has its fill, no note.
      expect(noteOf('Report', `B${MAX_NOTES}`)).toBe(`note ${MAX_NOTES - 3}`);
      expect(noteOf('Report', `B${MAX_NOTES + 1}`)).toBeUndefined();
      expect(noteOf('Other', 'A2')).toBe('219 ExternalId: bad id\nsecond line');
      // Excel shows a note only through the sheet's legacy drawing; each sheet's shapes in blocks of their own.
      expect(await zipEntryText(path, 'xl/worksheets/sheet2.xml')).toContain('<legacyDrawing r:id="rId2"/>');
      expect(await zipEntryText(path, 'xl/drawings/vmlDrawing2.vml')).toContain('<o:idmap v:ext="edit" data="11"/>');
    });
  });

  it('refuses a sheet name Excel refuses, and two sheets of one name', async () => {
    const workbook = new WorkbookWriter(
      new Writable({ write: (_chunk, _encoding, done) => done() }),
      excelDateFormats(undefined),
    );
    await expect(workbook.sheet('a/b')).rejects.toThrow('cannot name an .xlsx sheet');
    await expect(workbook.sheet('x'.repeat(32))).rejects.toThrow('cannot name an .xlsx sheet');
    await workbook.sheet('One');
    await workbook.endSheet();
    await expect(workbook.sheet('one')).rejects.toThrow('two sheets named "one"');
  });
});
