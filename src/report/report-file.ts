import { devNull } from 'node:os';
import { lstat, rename, unlink } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ReplaceFailedError } from '../system/atomic-file.js';
import { openOutputFile, PlantedEntryError, type OutputFile } from '../system/output-file.js';
import { UsageError } from '../system/errors.js';
import type { TextSink } from '../system/text-sink.js';
import { describeSystemError } from '../system/system-error-words.js';

export type ReportFormat = 'json' | 'csv' | 'xlsx' | 'junit' | 'html';

/** The report format from the file name (/dev/null: any); anything else is a usage error before any work starts. */
export function reportFormatOf(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (path === devNull) return 'json';
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  if (ext === '.xlsx') return 'xlsx';
  if (ext === '.xml') return 'junit';
  if (ext === '.html' || ext === '.htm') return 'html';
  throw new UsageError(
    `--report ${path}: the file name must end in .json, .csv, .xlsx, .xml (JUnit, for CI test reports) or .html (a page to read)`,
  );
}

/**
 * A report file through the output gate (output-file.ts): a file is written beside its final
 * name and renamed into place only when complete, so a reader never sees half a report and an
 * old report survives a crashed run; a FIFO or device is written in place.
 */
export interface ReportFile {
  /** Text, or the bytes of a workbook's zip (xlsx-report-writer.ts). */
  sink: TextSink & { write(chunk: string | Buffer): Promise<void> };
  /** A failure met beside the writes (the workbook's stream): `commit` then discards the file and throws it. */
  failed(error: unknown): void;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/** The report's own failure, worded once for every format; a failed replace says who usually holds the file. */
export function cannotWriteReport(
  path: string,
  error: unknown,
  aside = '',
  what = 'report ',
): UsageError & { reason: string } {
  // `reason` without the path, for a message that names the report already (cli/output.ts):
  // one path, spelt once, even when it has spaces (C:\Users\Ann Lee\...).
  const reason = (error instanceof ReplaceFailedError ? error.reason : describeSystemError(error, 'directory')) + aside;
  // Another user's entry there: refused as every untrusted place is (E2400).
  const code = error instanceof PlantedEntryError ? 'E2400' : undefined;
  return Object.assign(new UsageError(`cannot write ${what}${path}: ${reason}`, { cause: error, code }), { reason });
}

/** Opens the output at once, so an unwritable one fails before sending; mode 0666, kept if only the replace fails. */
export async function openReportFile(path: string, earlierIs?: string): Promise<ReportFile> {
  let file: OutputFile;
  try {
    file = await openOutputFile(path, { mode: 0o666, keepOnFailedReplace: true });
  } catch (error) {
    throw cannotWriteReport(path, error);
  }
  let failure: unknown;
  let aside = '';
  const failing = async (error: unknown) => {
    failure = error;
    aside = await moveAside(path, 'report', earlierIs);
    return cannotWriteReport(path, error, aside);
  };
  return {
    failed: (error) => void (failure ??= error),
    sink: {
      async write(chunk: string | Buffer) {
        if (failure !== undefined) throw cannotWriteReport(path, failure, aside);
        await file.writer.write(chunk).catch(async (error: unknown) => {
          throw await failing(error);
        });
      },
    },
    async commit() {
      if (failure !== undefined) {
        await file.discard();
        throw cannotWriteReport(path, failure, aside);
      }
      await file.commit().catch(async (error: unknown) => {
        throw error instanceof ReplaceFailedError ? cannotWriteReport(path, error) : await failing(error);
      });
      if (earlierIs === undefined) await dropEarlier(path);
    },
    discard: () => file.discard(),
  };
}

/**
 * This run's report not written (a full disk): an earlier one at the name is renamed aside, never
 * taken for this run's (docs/cli.md, "Run report"); said as what became of it. Never over a
 * `<name>.earlier` the run reads (`earlierIs`: what it is), nor removed by `commit`.
 */
export async function moveAside(path: string, what = 'report', earlierIs?: string): Promise<string> {
  if (!(await regularFile(path))) return '';
  if (earlierIs !== undefined)
    return `; the file there is an earlier run's (not renamed: ${basename(path)}.earlier is ${earlierIs})`;
  return rename(path, `${path}.earlier`).then(
    () => `; the earlier ${what} there is now ${basename(path)}.earlier`,
    (error: unknown) => `; the file there is an earlier run's (not renamed: ${describeSystemError(error, 'file')})`,
  );
}

/** This run's output in place: one a failed night moved aside goes. */
export const dropEarlier = async (path: string) =>
  (await regularFile(`${path}.earlier`)) && unlink(`${path}.earlier`).catch(() => undefined);

/** A regular file (not a link, a device or a folder): the only kind a report's earlier copy is moved or removed as. */
const regularFile = (path: string): Promise<boolean> =>
  lstat(path).then(
    (at) => at.isFile(),
    () => false,
  );
