import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ReplaceFailedError } from '../system/atomic-file.js';
import { TargetError, UsageError } from '../system/errors.js';
import { fileIdentity, openOutputFile, type OutputFile } from '../system/output-file.js';
import type { CommandDeps } from './command-deps.js';
import { describeSystemError } from '../system/system-error-words.js';

/** A write or the final step failed after the output was opened: exit 3, the finished file kept beside when only its replace failed. */
function writeFailure(out: string, error: unknown): TargetError {
  if (error instanceof ReplaceFailedError) {
    return new TargetError(`cannot replace ${out}: ${describeSystemError(error.cause)}, another program holds the file open (close it in Excel); the finished file was kept at ${error.keptAt}`, { cause: error });
  }
  return new TargetError(`cannot write ${out}: ${describeSystemError(error)}`, { cause: error });
}

/**
 * Runs `produce` with stdout pointed at `out` (`--out <file>`), or as it is when `out` is
 * undefined; diagnostics stay on stderr. Through the output gate (docs/security.md, "Outputs"):
 * a failed command leaves the old file; a write or a final replace that fails (on Windows: the
 * file is open in Excel, the finished file kept beside it) is exit 3.
 */
export async function withOutFile(
  out: string | undefined,
  deps: CommandDeps,
  produce: (deps: CommandDeps) => Promise<number>,
  /** `secret`: what the store holds (PINs, password hashes, links): 0600, the kept-beside copy too. `public`: the umask decides. */
  holds: 'secret' | 'public' = 'secret',
  /** The file the command reads (`--file`): written over, the input would be lost. */
  reads?: string,
): Promise<number> {
  if (out === undefined) return produce(deps);
  if (reads !== undefined && reads !== '-' && fileIdentity(resolve(deps.cwd, reads)) === fileIdentity(resolve(deps.cwd, out))) {
    throw new UsageError(`--out ${out} is the --file file this run reads: the output would replace it; give the output another name`);
  }
  let file: OutputFile;
  try {
    file = await openOutputFile(resolve(deps.cwd, out), { mode: holds === 'secret' ? 0o600 : 0o666, keepOnFailedReplace: true, platform: deps.platform ?? process.platform });
  } catch (error) {
    // The gate's own words (a socket, a file Excel holds) or the system's.
    const own = (error as NodeJS.ErrnoException).code === undefined && error instanceof Error;
    throw new UsageError(`cannot write ${out}: ${own ? error.message : describeSystemError(error, 'directory')}`, { cause: error });
  }
  const write = (chunk: string | Buffer) =>
    file.writer.write(chunk).catch((error: unknown) => {
      throw writeFailure(out, error);
    });
  const bytes = new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk).then(() => done(), done);
    },
  });
  const fileDeps: CommandDeps = {
    ...deps,
    stdout: { write },
    stdoutBytes: bytes,
    stdoutIsTTY: false,
  };
  delete fileDeps.stdoutColumns;
  let code: number;
  try {
    code = await produce(fileDeps);
    // A workbook's last chunks may still wait in `bytes` when the producer is done: all of them
    // reach the file before it is renamed into place (else a cut-short zip, exit 0).
    await finished(bytes.end());
  } catch (error) {
    await file.discard();
    throw error;
  }
  await file.commit().catch((error: unknown) => {
    throw writeFailure(out, error);
  });
  return code;
}
