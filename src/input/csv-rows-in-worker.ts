import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputFileError } from '../system/errors.js';
import { shippedAsset } from '../system/shipped-file.js';
import type { CsvDialect } from '../formats/csv-cell.js';

/** Receives every non-blank CSV row with the line it starts on; may throw InputFileError. */
export interface CsvRowSink {
  /** The header row, with how the file is written (for a report in the same dialect). */
  header(cells: string[], line: number, dialect: CsvDialect): void;
  row(cells: string[], line: number): void;
}

/**
 * A dry run reads a CSV file once, and csv-parse is about half of its CPU: on a file
 * this large or larger, the file is read and tokenized in a worker thread while this thread
 * builds, checks and validates the records. Below it a worker's start (~40 ms) is not repaid.
 */
export const ROWS_IN_WORKER_MIN_BYTES = 4 * 1024 * 1024;

/** What the worker is told: the file to read, as csvRows takes it. */
export interface RowWorkerData {
  path: string;
  file: string;
  encoding: string | undefined;
}

/**
 * One message of the worker: a chunk's rows (`rows`: width then line, per row; `text`: their
 * cells joined by NUL), with the header when it came in that chunk; or the end; or the
 * InputFileError that ended the read (after the rows before it); or any other failure.
 */
export interface RowMessage {
  header?: { cells: string[]; line: number; dialect: CsvDialect };
  rows?: Int32Array;
  text?: string;
  end?: true;
  inputError?: { file: string; line: number | undefined; reason: string };
  failure?: string;
}

/**
 * The worker's file: in the bundle (whose import.meta.url is this module's place in dist/,
 * scripts/build-bundle.mjs) dist/bundle/csv-row-worker.mjs, the one the package ships; else
 * the compiled module beside this one; vitest runs src/, where it is the built one
 * (test/support/global-build.ts builds dist/ first). In the one-file executable there is no
 * file: the worker is a script among its assets (system/shipped-file.ts), run from its text, whose
 * stack frames name it examctl-csv-worker.js (scripts/build-release.mjs). None there: the read
 * stays in this thread.
 */
const WORKER = ((): URL | string => {
  if (import.meta.url.endsWith('.ts')) return new URL('../../dist/input/csv-row-worker.js', import.meta.url);
  const shipped = shippedAsset(fileURLToPath(new URL('../bundle/csv-row-worker.cjs', import.meta.url)));
  if (shipped !== undefined) return shipped.toString('utf8');
  const bundled = new URL('../bundle/csv-row-worker.mjs', import.meta.url);
  return existsSync(fileURLToPath(bundled)) ? bundled : new URL('./csv-row-worker.js', import.meta.url);
})();

/** True when `path` is a regular file of at least `minBytes` and the worker's module is there. */
export function rowsInWorkerPay(path: string, minBytes: number): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size >= minBytes && (typeof WORKER === 'string' || existsSync(fileURLToPath(WORKER)));
  } catch {
    // Unreadable: the read in this thread says why.
    return false;
  }
}

/**
 * csvRows (csv-reader.ts) with the file read and tokenized in a worker thread: the same rows
 * with the same lines handed to `sink` synchronously, a chunk's rows per step, the same
 * InputFileError after the rows before it. At most a few chunks are read ahead of the caller.
 */
export async function* csvRowsInWorker(path: string, file: string, sink: CsvRowSink, encoding?: string): AsyncGenerator<void> {
  const data: RowWorkerData = { path, file, encoding };
  // Loaded here: node:worker_threads is ~2 ms of a start that reads no file this large.
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(WORKER, { workerData: data, eval: typeof WORKER === 'string' });
  const queue: RowMessage[] = [];
  let waiting: ((message: RowMessage) => void) | undefined;
  const deliver = (message: RowMessage): void => {
    const taker = waiting;
    waiting = undefined;
    if (taker !== undefined) taker(message);
    else queue.push(message);
  };
  worker.on('message', deliver);
  worker.on('error', (error) => deliver({ failure: error.stack ?? error.message }));
  worker.on('exit', (code) => deliver({ failure: `the CSV reader's worker thread exited (${code}) before the end of the file` }));
  try {
    for (;;) {
      const message = queue.shift() ?? (await new Promise<RowMessage>((resolve) => (waiting = resolve)));
      // Taken: the worker may read one chunk more.
      worker.postMessage(0);
      if (message.header !== undefined) sink.header(message.header.cells, message.header.line, message.header.dialect);
      const rows = message.rows;
      if (rows !== undefined && rows.length > 0) {
        const cells = (message.text as string).split('\0');
        let at = 0;
        for (let i = 0; i < rows.length; i += 2) {
          const width = rows[i] as number;
          sink.row(cells.slice(at, at + width), rows[i + 1] as number);
          at += width;
        }
        if (at !== cells.length) throw new Error(`the CSV reader's worker sent ${cells.length} cells for rows of ${at}`);
      }
      if (message.end === true) return;
      if (message.inputError !== undefined) throw new InputFileError(message.inputError.file, message.inputError.line, message.inputError.reason);
      if (message.failure !== undefined) throw new Error(message.failure);
      yield;
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
