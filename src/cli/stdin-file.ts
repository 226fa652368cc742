/**
 * `--file -`: the input comes on stdin. A run reads its input more than once (the structure
 * pass, then the send; schedule push also looks ahead for its warnings), and stdin can be read
 * only once, so it is copied to a private temporary file first and read from there like any
 * file, under the name `stdin` in messages and reports. The copy is removed when the command ends.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors.js';

export const STDIN_NAME = 'stdin';

export interface StdinFile {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStdin(stdin: NodeJS.ReadableStream, isTTY: boolean): Promise<StdinFile> {
  if (isTTY) throw new UsageError('--file -: stdin is a terminal; pipe the file in (examctl ... --file - < users.csv)');
  const dir = await mkdtemp(join(tmpdir(), 'examctl-stdin-'));
  const path = join(dir, STDIN_NAME);
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stdin, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}
