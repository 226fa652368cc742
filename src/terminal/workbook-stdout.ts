import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { InternalError, UsageError } from '../system/errors.js';
import { drainedOrGone } from '../system/drained-or-gone.js';

/** A workbook to stdout (`-o xlsx > file.xlsx`), refused on a terminal; `redirect` is the command that does it. */
export async function writeWorkbookToStdout(
  deps: { readonly stdoutIsTTY?: boolean; readonly stdoutBytes?: NodeJS.WritableStream },
  redirect: string,
  write: (stream: Writable) => Promise<void>,
): Promise<void> {
  if (deps.stdoutIsTTY)
    throw new UsageError(
      `an .xlsx workbook is not shown on a terminal: redirect stdout to a file, e.g. ${redirect}, or give --out <file> (Windows PowerShell: always --out)`,
    );
  const out = deps.stdoutBytes;
  if (out === undefined) throw new InternalError('no byte stream for stdout');
  // stdout stays open after the workbook (the process still writes to it): end only this adapter.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      // stdout lost (a closed pipe, a full disk: main.ts ends with 141): the rest is dropped,
      // never waited for, since a failed stream never drains.
      if ((out as Partial<Writable>).destroyed === true || out.write(chunk)) {
        done();
        return;
      }
      void drainedOrGone(out).then(() => done());
    },
  });
  const written = finished(stream);
  await write(stream);
  await written;
}
