/**
 * A command's `--file` as it will be read: a device refused, `-` or one named pipe copied first to a private file,
 * since a run reads its input more than once (docs/cli.md, "The local store").
 */
import { resolve } from 'node:path';
import { UsageError } from '../system/errors.js';
import { pipePath, spoolPipe, spoolStdin } from '../system/stdin-file.js';
import { say } from '../formats/terminal-text.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { promptsAllowed, type CommandDeps } from './command-deps.js';

export interface FileInput {
  /** The copy of stdin or the pipe, when one was given. */
  stdin?: { path: string; remove(): Promise<void> };
  /** The pipe the copy was read from (a run of it is journaled as `--file -`). */
  pipedFile?: string;
}

/** Copies `-` or the one pipe among `file`'s values; refuses more than one. */
export async function spoolFileInput(file: unknown, options: GlobalOptions, deps: CommandDeps): Promise<FileInput> {
  const files = [file].flat().filter((name): name is string => typeof name === 'string');
  const pipes: string[] = [];
  for (const name of files.filter((each) => each !== '-')) {
    if ((await pipePath(name, deps.cwd)) !== undefined) pipes.push(name);
  }
  if (pipes.length + (files.includes('-') ? 1 : 0) > 1) {
    throw new UsageError('--file: one pipe (or -) at most is read, once: give regular files for the rest');
  }
  const pipedFile = pipes[0];
  if (pipedFile !== undefined) {
    const stdin = await spoolPipe(resolve(deps.cwd, pipedFile), pipedFile, deps.signal, {
      canWait: promptsAllowed(options, deps),
      onWait: () => void say(deps, `waiting for a writer on ${pipedFile} (a named pipe; Ctrl-C to stop)`),
    });
    return { stdin, pipedFile };
  }
  return files.includes('-') ? { stdin: await spoolStdin(deps.stdin ?? process.stdin, deps.signal) } : {};
}

/** The options a run is journaled with: a pipe is read once, like stdin, so its run says `--file -` (nothing to read
 * again on resume). */
export function journaledOptions<T extends object>(options: T, input: FileInput): T {
  return input.pipedFile === undefined ? options : { ...options, file: '-' };
}
