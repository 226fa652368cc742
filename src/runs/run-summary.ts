import { decodeChecksummedLine } from '../system/checksummed-line.js';
import { openRegularFile } from '../system/regular-file.js';
import type { ReportSummary } from '../report/run-report.js';
import { checkJournalLine, finishesRun, isCount, type RunHeaderLine } from './journal-lines.js';
import { LineReader } from './line-buffers.js';

/*
 * A finished run from its journal's first and last lines (docs/runs.md, "Run summaries"): only
 * when the last line is an end line that finished the run; else the journal is read whole.
 */
/** Far above any header line (the recorded options and the input's path). */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/** Far above any end line: a longer last line is not one. */
const MAX_END_BYTES = 64 * 1024;

/** What `runs list` needs of a finished run; undefined when its journal must be read whole. */
interface QuickRun {
  header: RunHeaderLine;
  endedAt: string;
  summary: ReportSummary;
}

export async function quickRun(journalFile: string): Promise<QuickRun | undefined> {
  const lines = await firstAndLastLines(journalFile);
  if (lines === undefined) return undefined;
  const end = lines.last === undefined ? undefined : decodeChecksummedLine(lines.last);
  const line = end?.ok === true ? checkJournalLine(end.body, false) : undefined;
  if (typeof line !== 'object' || line.t !== 'end' || !finishesRun(line.reason)) return undefined;
  const { total, ok, partial, failed, skipped } = line.summary;
  if (![total, ok, partial, failed, skipped].every(isCount)) return undefined;
  return { header: lines.header, endedAt: line.at, summary: { total, ok, partial, failed, skipped } };
}

/** A journal's header line alone, whatever follows it. Undefined when it cannot be read as one. */
export async function journalHeader(journalFile: string): Promise<RunHeaderLine | undefined> {
  return (await firstAndLastLines(journalFile, false))?.header;
}

/** The header line, checked, and (with `last`) the journal's last whole line. */
async function firstAndLastLines(journalFile: string, last = true): Promise<{ header: RunHeaderLine; last?: Buffer } | undefined> {
  const handle = await openRegularFile(journalFile).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const size = (await handle.stat()).size;
    const first = new LineReader(handle, Math.min(size, MAX_HEADER_BYTES)).lineAt(0);
    const decoded = first === undefined ? undefined : decodeChecksummedLine(first);
    const header = decoded?.ok === true ? checkJournalLine(decoded.body, true) : undefined;
    if (typeof header !== 'object' || header.t !== 'run') return undefined;
    if (!last) return { header };
    const tail = Buffer.alloc(Math.min(size, MAX_END_BYTES));
    const { bytesRead } = await handle.read(tail, 0, tail.length, size - tail.length);
    // A torn last line (no newline), or one longer than the tail: no end line to go by.
    const start = tail.lastIndexOf(10, bytesRead - 2) + 1;
    if (bytesRead !== tail.length || tail[bytesRead - 1] !== 10 || (start === 0 && tail.length < size)) return { header };
    return { header, last: tail.subarray(start, bytesRead - 1) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}
