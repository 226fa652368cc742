import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../errors.js';
import { streamSink, type TextSink } from './text-sink.js';

export type ReportFormat = 'json' | 'csv';

/** The report format from the file name; anything else is a usage error before any work starts. */
export function reportFormatOf(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  throw new UsageError(`--report ${path}: the file name must end in .json or .csv`);
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

/** Opens the temp file at once, so an unwritable report location fails before anything is sent. */
export async function openAtomicFile(path: string): Promise<AtomicFile> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle;
  try {
    handle = await open(temp, 'wx');
  } catch (error) {
    throw new UsageError(`cannot write report ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const stream = handle.createWriteStream();
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  const sink = streamSink(stream);
  const closed = (): Promise<void> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      stream.end(() => (failure ? reject(failure) : resolve()));
    });
  return {
    sink: {
      write(text: string) {
        if (failure) throw new UsageError(`cannot write report ${path}: ${failure.message}`);
        return sink.write(text);
      },
    },
    async commit() {
      try {
        await closed();
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true });
        throw new UsageError(`cannot write report ${path}: ${(error as Error).message}`);
      }
    },
    async discard() {
      stream.destroy();
      await rm(temp, { force: true });
    },
  };
}
