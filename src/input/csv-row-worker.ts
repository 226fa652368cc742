/**
 * The worker half of csv-rows-in-worker.ts: reads and tokenizes one CSV file (csvRows: the text
 * source, csv-parse, line numbers, blank and ragged rows) and posts its rows to the thread that
 * started it, a chunk's rows per message, at most MAX_AHEAD messages ahead of what that thread
 * took. Every cell of a message is in one string, cells joined by NUL: no text read can hold a
 * NUL (text-source.ts refuses it as binary), and one string costs one copy, not one per cell.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InputFileError } from '../system/errors.js';
import { csvRows } from './csv-reader.js';
import type { RowMessage, RowWorkerData } from './csv-rows-in-worker.js';

/** Messages posted and not yet taken before the worker waits (16 x ~700 rows: memory stays flat). */
const MAX_AHEAD = 16;

const port = parentPort;
if (port === null) throw new Error('csv-row-worker.js runs as a worker thread');
const { path, file, encoding } = workerData as RowWorkerData;

let credit = MAX_AHEAD;
let wake: (() => void) | undefined;
port.on('message', () => {
  credit += 1;
  const resume = wake;
  wake = undefined;
  resume?.();
});

let header: RowMessage['header'];
let cells: string[] = [];
let rows: number[] = [];

async function post(message: RowMessage): Promise<void> {
  if (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
  credit -= 1;
  (port as NonNullable<typeof port>).postMessage(message);
}

/** What the sink collected since the last message, as one message (none when nothing was). */
function collected(): RowMessage | undefined {
  if (header === undefined && rows.length === 0) return undefined;
  const message: RowMessage = { rows: Int32Array.from(rows), text: cells.join('\0') };
  if (header !== undefined) message.header = header;
  header = undefined;
  cells = [];
  rows = [];
  return message;
}

/** The whole read; a function, not top-level awaits: the one-file executable runs this as a script (scripts/build-release.mjs). */
async function readAll(): Promise<void> {
  try {
    const sink = {
      header(row: string[], line: number, dialect: NonNullable<RowMessage['header']>['dialect']): void {
        header = { cells: row, line, dialect };
      },
      row(row: string[], line: number): void {
        rows.push(row.length, line);
        for (let i = 0; i < row.length; i++) cells.push(row[i] as string);
      },
    };
    for await (const _ of csvRows(path, file, sink, encoding)) {
      const message = collected();
      if (message !== undefined) await post(message);
    }
    await post({ end: true });
  } catch (error) {
    // The rows before the problem go first, as csvRows hands them on before it throws.
    const message = collected();
    if (message !== undefined) await post(message);
    if (error instanceof InputFileError) await post({ inputError: { file: error.file, line: error.line, reason: error.reason } });
    else await post({ failure: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
  (port as NonNullable<typeof port>).close();
}
void readAll();
