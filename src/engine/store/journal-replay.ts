/** Reading a journal forward from where memory is: the replay of a load, and the catch-up before a write. */
import type { FileHandle } from 'node:fs/promises';
import { StoreDamagedError } from '../../system/errors.js';
import type { Change } from './contract.js';
import { decodeJournalLine } from './journal.js';
import { streamLines } from '../../system/file-lines.js';
import { storeFileUnreadable } from '../../system/system-error-words.js';

/** Just past the last journal line accepted into memory. */
export interface JournalPosition {
  offset: number;
  lines: number;
}

/**
 * Applies the complete, checksummed journal lines past `position`, moving it line by line (so
 * it stays true to memory even when a later line throws). A bad line followed by another line
 * is damage; a bad or unfinished last line is a write that never completed: ignored, and cut off
 * when we hold the lock (so the next append starts on a clean line).
 */
export async function replayJournal(
  journal: FileHandle,
  file: string,
  position: JournalPosition,
  apply: (change: Change) => void,
  underLock: boolean,
): Promise<void> {
  let size: number;
  try {
    size = (await journal.stat()).size;
  } catch (error) {
    throw storeFileUnreadable(file, error);
  }
  if (size < position.offset) {
    throw new StoreDamagedError(`${file}: shorter (${size} bytes) than its committed content (${position.offset} bytes)`);
  }
  if (size === position.offset) return;
  let bad: { lineNo: number; reason: string; start: number } | undefined;
  try {
    const from = { offset: position.offset, lineNo: position.lines + 1 };
    await streamLines(journal, (line) => {
      if (bad) throw new StoreDamagedError(`${file}:${bad.lineNo}: ${bad.reason}`);
      if (!line.terminated) {
        bad = { lineNo: line.lineNo, reason: 'incomplete line', start: line.start };
        return;
      }
      const decoded = decodeJournalLine(line.bytes);
      if (!decoded.ok) {
        bad = { lineNo: line.lineNo, reason: decoded.reason, start: line.start };
        return;
      }
      for (const change of decoded.changes) apply(change);
      position.offset = line.end;
      position.lines = line.lineNo;
    }, from);
  } catch (error) {
    if (error instanceof StoreDamagedError) throw error;
    throw storeFileUnreadable(file, error);
  }
  if (bad && underLock) {
    await journal.truncate(position.offset);
    await journal.datasync();
  }
}
