/** An old night's very file again (by its SHA-256) is refused unless --allow-old-file (docs/sync.md, "Stale input"). */
import { fingerprintInput } from '../runs/resume-plan.js';
import { UsageError } from '../system/errors.js';
import { terminalLine } from '../formats/terminal-text.js';
import { isRunReportHeader } from '../formats/report-csv-contract.js';
import type { InputRecord } from '../input/record.js';
import type { BatchedRecords } from '../input/batches.js';
import { byKey } from '../domain/key-order.js';

/** How many runs' file digests a population's record keeps. */
const KEPT_FILES = 30;

/** One run's input, as a population's record keeps it: its run id and the SHA-256 (hex) of the file's bytes. */
export type RunFile = readonly [run: string, sha256: string];

/** The SHA-256 of an input file's bytes, as the run journal's (undefined: unreadable, the reader says why). */
export async function fileDigest(path: string): Promise<string | undefined> {
  return (await fingerprintInput(path).catch(() => undefined))?.sha256;
}

/** A run report fed back (its header is a report's): a partial correction, never a night's export. */
export async function isFedBack(records: AsyncIterable<InputRecord> & Partial<BatchedRecords>): Promise<boolean> {
  const header = records.header?.()?.cells;
  if (header === undefined)
    for await (const { raw } of records) return raw !== undefined && isRunReportHeader(raw.header);
  return isRunReportHeader(header ?? records.header?.()?.cells ?? []);
}

/** A population line's `f` as read: run and digest pairs, or undefined when it is not that. */
export function runFilesOf(value: unknown): RunFile[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const pairs = value.filter(
    (pair): pair is RunFile =>
      Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string',
  );
  return pairs.length === value.length ? pairs : undefined;
}

/** The files a population's record keeps, by run, the last KEPT_FILES (a start line adds its own: one pair). */
export function withRunFiles(kept: readonly RunFile[] | undefined, added: readonly RunFile[] | undefined) {
  if (added === undefined) return kept?.slice();
  const byRun = new Map([...(kept ?? []), ...added].map((pair) => [pair[0], pair]));
  return [...byRun.values()].sort(byKey).slice(-KEPT_FILES);
}

/**
 * Refuses (exit 2) a file an older run of the population read while the newest read another, unless `allowed`;
 * the error's `oldFileRun` read it. A record without digests (an older examctl) is not judged.
 */
export async function refuseOldFile(
  files: readonly RunFile[] | undefined,
  digestOf: () => Promise<string | undefined>,
  allowed: boolean,
  population: string | undefined,
  kind: string,
): Promise<void> {
  const undone =
    kind === 'users'
      ? 'enable the leavers they disabled, revert the changes they sent'
      : "put back the sittings' times and candidates they changed";
  const digest = allowed || files === undefined ? undefined : await digestOf();
  const newest = files?.at(-1);
  if (digest === undefined || newest === undefined || newest[1] === digest) return;
  const older = files?.findLast(([, sha256]) => sha256 === digest);
  if (older === undefined) return;
  // Two exports to one target without --population look alike: each is the other's "newer file".
  const another =
    kind === 'users' && population === undefined
      ? `; if its users are another export's than run ${newest[0]}'s (students, staff), give each export its --population (docs/sync.md, "Two exports, two populations")`
      : '';
  throw Object.assign(
    new UsageError(
      terminalLine(
        `this file is byte for byte the one run ${older[0]} read, while the newest run${population === undefined ? '' : ` of --population ${population}`} (${newest[0]}) read another: ` +
          `is it an old night's file run again? Sent now, it would undo what the later runs did (${undone}). ` +
          `Nothing was sent. If it is meant, run again with --allow-old-file (docs/sync.md, "Stale input")${another}`,
      ),
      { code: 'E2502' },
    ),
    { oldFileRun: older[0] },
  );
}
