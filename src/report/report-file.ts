import { extname } from 'node:path';
import { ReplacementFile, removeStaleTemps } from '../atomic-file.js';
import { UsageError } from '../errors.js';
import type { TextSink } from './text-sink.js';

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

function cannotWrite(path: string, error: unknown): UsageError {
  return new UsageError(`cannot write report ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}

/** Opens the temp file at once, so an unwritable report location fails before anything is sent. */
export async function openAtomicFile(path: string): Promise<AtomicFile> {
  let file: ReplacementFile;
  // A run killed while writing this report left its temp file: the next report to it cleans up.
  await removeStaleTemps(path);
  try {
    file = await ReplacementFile.open(path, { mode: 0o666 });
  } catch (error) {
    throw cannotWrite(path, error);
  }
  let failure: unknown;
  return {
    sink: {
      async write(text: string) {
        if (failure !== undefined) throw cannotWrite(path, failure);
        try {
          await file.writer.write(text);
        } catch (error) {
          failure = error;
          throw cannotWrite(path, error);
        }
      },
    },
    async commit() {
      if (failure !== undefined) {
        await file.discard();
        throw cannotWrite(path, failure);
      }
      try {
        await file.commit();
      } catch (error) {
        throw cannotWrite(path, error);
      }
    },
    discard: () => file.discard(),
  };
}
