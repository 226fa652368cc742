import { extname } from 'node:path';
import { ReplacementFile, ReplaceFailedError, removeStaleTemps, type AtomicFileOptions } from '../system/atomic-file.js';
import { UsageError } from '../system/errors.js';
import type { TextSink } from '../system/text-sink.js';
import { open, stat } from 'node:fs/promises';
import { isBusyError } from '../system/busy-retry.js';
import { describeSystemError } from '../system/system-error-words.js';

export type ReportFormat = 'json' | 'csv' | 'xlsx' | 'junit';

/** The report format from the file name; anything else is a usage error before any work starts. */
export function reportFormatOf(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  if (ext === '.xlsx') return 'xlsx';
  if (ext === '.xml') return 'junit';
  throw new UsageError(`--report ${path}: the file name must end in .json, .csv, .xlsx or .xml (JUnit, for CI test reports)`);
}

/**
 * A report file written beside its final name and renamed into place only when complete,
 * so a reader never sees half a report and an old report survives a crashed run.
 */
export interface AtomicFile {
  sink: TextSink;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * The report's own failure, worded once for every report format. A failed final replace says
 * who usually holds the file (the caller says where the finished report was kept).
 */
export function cannotWriteReport(path: string, error: unknown): UsageError & { reason: string } {
  // `reason` without the path, for a message that names the report already (cli/output.ts):
  // one path, spelt once, even when it has spaces (C:\Users\Ann Lee\...).
  const reason =
    error instanceof ReplaceFailedError
      ? `another program holds the file open${error.code === undefined ? '' : ` (${error.code})`}: close it in Excel`
      : describeSystemError(error, 'directory');
  return Object.assign(new UsageError(`cannot write report ${path}: ${reason}`, { cause: error }), { reason });
}

/** How a report file is opened: mode 0666 as any file a tool writes, kept when only its final replace fails. */
export const REPORT_FILE_OPTIONS: AtomicFileOptions = { mode: 0o666, keepOnFailedReplace: true };

/** Opens the temp file at once, so an unwritable report location fails before anything is sent. */
export async function openAtomicFile(path: string, options: AtomicFileOptions = REPORT_FILE_OPTIONS): Promise<AtomicFile> {
  let file: ReplacementFile;
  // A run killed while writing this report left its temp file: the next report to it cleans up.
  await removeStaleTemps(path);
  try {
    await checkReplaceable(path);
    file = await ReplacementFile.open(path, options);
  } catch (error) {
    throw cannotWriteReport(path, error);
  }
  let failure: unknown;
  return {
    sink: {
      async write(text: string) {
        if (failure !== undefined) throw cannotWriteReport(path, failure);
        try {
          await file.writer.write(text);
        } catch (error) {
          failure = error;
          throw cannotWriteReport(path, error);
        }
      },
    },
    async commit() {
      if (failure !== undefined) {
        await file.discard();
        throw cannotWriteReport(path, failure);
      }
      try {
        await file.commit();
      } catch (error) {
        throw cannotWriteReport(path, error);
      }
    },
    discard: () => file.discard(),
  };
}

export interface ReplaceableCheck {
  platform?: NodeJS.Platform;
  /** Opens the existing file for writing and closes it again (tests inject a failing one). */
  probe?: (path: string) => Promise<void>;
}

async function openForWriting(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  await handle.close();
}

/**
 * Refuses, before anything is sent, a report name whose existing file cannot be replaced: a
 * directory, or on Windows a file another program holds open (Excel keeps a workbook or CSV
 * open with writes denied, so opening it for writing fails with EBUSY/EPERM/EACCES) or a
 * read-only file, either of which would fail the final rename after every record went. On
 * POSIX a rename replaces a read-only or open file, so only the directory case applies there.
 */
export async function checkReplaceable(path: string, check: ReplaceableCheck = {}): Promise<void> {
  let info;
  try {
    info = await stat(path);
  } catch {
    info = undefined; // No file yet (or unreadable: the temp file's creation reports the real problem).
  }
  // Another user's entry (a link too) planted at the path in /tmp: refused before anything is sent (src/system/trusted-place.ts).
  const planted = await (await import('../system/trusted-place.js')).plantedEntryProblem(path);
  if (planted !== undefined) throw new Error(planted);
  if (info === undefined) return;
  if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
  if ((check.platform ?? process.platform) !== 'win32') return;
  try {
    await (check.probe ?? openForWriting)(path);
  } catch (error) {
    if (!isBusyError(error)) return;
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`the existing file cannot be replaced (${code}): another program holds it open (close it in Excel) or it is read-only`, { cause: error });
  }
}
