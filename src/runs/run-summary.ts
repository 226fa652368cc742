import { join } from 'node:path';
import { writeFileAtomic } from '../system/atomic-file.js';
import { decodeChecksummedLine } from '../system/checksummed-line.js';
import { openRegularFile, readRegularFileWithStat } from '../system/regular-file.js';
import type { ReportSummary } from '../report/run-report.js';
import { checkJournalLine, finishesRun, isCount, type EndReason, type RunHeaderLine } from './journal-lines.js';

/**
 * A finished run's summary beside its journal (docs/runs.md, "Run summaries"): what `runs list`
 * shows, so listing costs a small read per run, not a parse of every journal line. Written once
 * the end line is durable; trusted only while the journal is exactly as long as it says (a
 * resume that appended since, or a summary a kill left behind, is never believed) and only for a
 * run that ended finished: an interrupted run is rebuilt from its journal.
 */
export const RUN_SUMMARY_FILE = 'summary.json';
const RUN_SUMMARY_VERSION = 1;
/** Far above any summary: a larger file is not one. */
const MAX_SUMMARY_BYTES = 64 * 1024;
/** Far above any header line (the recorded options and the input's path). */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;

interface SummaryFile {
  v: number;
  /** The journal's length once the end line was written. */
  journalBytes: number;
  endedAt: string;
  reason: EndReason;
  summary: ReportSummary;
}

/** Writes the summary of an attempt that ended (0600, atomic replace). */
export async function writeRunSummary(dir: string, journalBytes: number, endedAt: string, reason: EndReason, summary: ReportSummary): Promise<void> {
  const { total, ok, partial, failed, skipped } = summary;
  const body: SummaryFile = { v: RUN_SUMMARY_VERSION, journalBytes, endedAt, reason, summary: { total, ok, partial, failed, skipped } };
  await writeFileAtomic(join(dir, RUN_SUMMARY_FILE), (writer) => writer.write(`${JSON.stringify(body)}\n`), { mode: 0o600 });
}

/** What `runs list` needs of a finished run, from its summary and its journal's first line; undefined when it must be read whole. */
export interface QuickRun {
  header: RunHeaderLine;
  endedAt: string;
  summary: ReportSummary;
}

export async function quickRun(dir: string, journalFile: string): Promise<QuickRun | undefined> {
  let parsed: Partial<SummaryFile>;
  try {
    const { bytes } = await readRegularFileWithStat(join(dir, RUN_SUMMARY_FILE), { maxBytes: MAX_SUMMARY_BYTES });
    parsed = JSON.parse(bytes.toString('utf8')) as Partial<SummaryFile>;
  } catch {
    return undefined; // none (a run of an older examctl, or killed before it), or not one: read the journal
  }
  const summary = parsed.summary as Partial<ReportSummary> | undefined;
  if (
    parsed.v !== RUN_SUMMARY_VERSION ||
    !isCount(parsed.journalBytes) ||
    typeof parsed.endedAt !== 'string' ||
    typeof parsed.reason !== 'string' ||
    !finishesRun(parsed.reason) ||
    summary === undefined ||
    ![summary.total, summary.ok, summary.partial, summary.failed, summary.skipped].every(isCount)
  ) {
    return undefined;
  }
  const header = await journalHeader(journalFile, parsed.journalBytes);
  if (header === undefined) return undefined;
  return { header, endedAt: parsed.endedAt, summary: summary as ReportSummary };
}

/**
 * A journal's header line alone, whatever follows it; with `length`, only while the journal is
 * that long (it changed since the summary). Undefined when it cannot be read as one.
 */
export async function journalHeader(journalFile: string, length?: number): Promise<RunHeaderLine | undefined> {
  const handle = await openRegularFile(journalFile).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const size = (await handle.stat()).size;
    if (length !== undefined && size !== length) return undefined;
    let buffer = Buffer.alloc(0);
    for (let position = 0; position < Math.min(size, MAX_HEADER_BYTES); ) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      buffer = Buffer.concat([buffer, chunk.subarray(0, bytesRead)]);
      position += bytesRead;
      const newline = buffer.indexOf(10);
      if (newline >= 0) {
        const decoded = decodeChecksummedLine(buffer.subarray(0, newline));
        if (!decoded.ok) return undefined;
        const line = checkJournalLine(decoded.body, true);
        return typeof line === 'string' || line.t !== 'run' ? undefined : line;
      }
    }
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
