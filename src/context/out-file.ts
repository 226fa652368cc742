import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { ReplaceFailedError, ReplacementFile } from '../system/atomic-file.js';
import { TargetError, UsageError } from '../system/errors.js';
import { checkReplaceable } from '../report/report-file.js';
import type { CommandDeps } from './command-deps.js';
import { describeSystemError } from '../system/system-error-words.js';

/**
 * Runs `produce` with stdout pointed at `out` (`--out <file>`), or as it is when `out` is
 * undefined. The file is written like a report (atomic-file.ts): beside its name, renamed into
 * place only once the command succeeded, so a failed command leaves the old file; an unwritable
 * location is exit 2 before any work; a final replace that fails (on Windows: the file is open in
 * Excel) is exit 3 and keeps the finished file beside it. Diagnostics stay on stderr. What is
 * written from the store or the service is created 0600 whatever the umask (docs/security.md,
 * "Other local users"); a template or schema, which holds nothing of the user's, keeps the umask.
 */
export async function withOutFile(
  out: string | undefined,
  deps: CommandDeps,
  produce: (deps: CommandDeps) => Promise<number>,
  /** `secret`: what the store holds (PINs, password hashes, links): 0600, the kept-beside copy too. `public`: the umask decides. */
  holds: 'secret' | 'public' = 'secret',
): Promise<number> {
  if (out === undefined) return produce(deps);
  const path = resolve(deps.cwd, out);
  let file: ReplacementFile;
  try {
    await checkReplaceable(path, { platform: deps.platform ?? process.platform });
  } catch (error) {
    // A file another program holds (Windows: open in Excel): checkReplaceable's own words carry
    // the hint ("close it in Excel"); a system error (EISDIR) is put into words as below.
    const held = (error as NodeJS.ErrnoException).code === undefined && error instanceof Error;
    throw new UsageError(`cannot write ${out}: ${held ? error.message : describeSystemError(error, 'file')}`, { cause: error });
  }
  try {
    file = await ReplacementFile.open(path, { mode: holds === 'secret' ? 0o600 : 0o666, keepOnFailedReplace: true });
  } catch (error) {
    throw new UsageError(`cannot write ${out}: ${describeSystemError(error, 'directory')}`, { cause: error });
  }
  const bytes = new Writable({
    write(chunk: Buffer, _encoding, done) {
      file.writer.write(chunk).then(() => done(), done);
    },
  });
  const fileDeps: CommandDeps = {
    ...deps,
    stdout: { write: (text: string) => file.writer.write(text) },
    stdoutBytes: bytes,
    stdoutIsTTY: false,
  };
  delete fileDeps.stdoutColumns;
  let code: number;
  try {
    code = await produce(fileDeps);
    // A workbook's last chunks may still wait in `bytes` when the producer is done: all of them
    // reach the file before it is renamed into place (else a cut-short zip, exit 0).
    await new Promise<void>((resolveEnd, reject) => {
      bytes.once('error', reject);
      bytes.end(() => resolveEnd());
    });
  } catch (error) {
    await file.discard();
    throw error;
  }
  try {
    await file.commit();
  } catch (error) {
    if (error instanceof ReplaceFailedError) {
      throw new TargetError(`cannot replace ${out}: ${describeSystemError(error.cause)}, another program holds the file open (close it in Excel); the finished file was kept at ${error.keptAt}`, { cause: error });
    }
    throw new TargetError(`cannot write ${out}: ${describeSystemError(error)}`, { cause: error });
  }
  return code;
}
