import type { PlannedAction } from '../port/integration-api.js';
import type { Problem } from '../domain/problem.js';
import type { FieldWarning } from '../domain/spreadsheet-warnings.js';
import type { MappedValue, RawRow, SourceRef } from '../input/record.js';
import type { CsvDialect } from '../formats/csv-cell.js';
import type { ActionCounts, PlanAction } from './plan-actions.js';
import { StoreLockedError } from '../system/errors.js';

/** docs/cli-contract.md, "Run report". */
export type ItemStatus = 'ok' | 'partial' | 'failed' | 'skipped';

/** What became of an item beyond its status: each action in docs/cli.md, "Created and updated". */
export type ItemAction = PlannedAction | 'disabled' | 'sent' | 'removed' | 'left';

export interface ReportItem {
  source: SourceRef;
  /** The record's external id (ExternalId, ScheduleExtId, invigilator id); null when unknown. */
  id: string | null;
  status: ItemStatus;
  errors: Problem[];
  /** Values that look mangled by a spreadsheet or a legacy encoding: reported, never refused. */
  warnings?: FieldWarning[];
  /** What the map file computed or translated, beside the cells it came from (docs/input-formats.md, "Map files"). */
  mapped?: MappedValue[];
  /** Local engine only: created / updated / unchanged (with --dry-run: what would happen). */
  action?: ItemAction;
  /** Why an item was not sent (--changed-only: the run that last sent it), or where a leaver came from. */
  note?: string;
  /** With action `updated`: the fields that change (the human plan shows them; not in the JSON or CSV report). */
  changedFields?: string[];
  /** --prune-memberships: the links and flags examctl sent that this request removes (docs/sync.md, "Movers"). */
  removed?: string[];
  /** With `removed`: the links the request adds (the plan's `joins H-D`; not in the JSON or CSV report). */
  joined?: string[];
  /** With `removed`: the field (`Hierarchies`) the page shows as the move, not as its old and new value. */
  moved?: string;
  /** Reported by a dry run: CSV and xlsx status `valid`/`invalid` (report-csv-contract.ts, DRY_RUN_STATUS). */
  dryRun?: true;
  /** A create that may exist under the id examctl chose: its status cell says IN_DOUBT. */
  inDoubt?: true;
  /** Each field the request changes, with its value before (where examctl knows it) and after. */
  changes?: readonly FieldChange[];
  /** What the run does with it, derived once from its unit (plan-actions.ts): every count by action reads this. */
  plan?: PlanAction;
}

/** One field's change: `before` is absent where examctl does not know the old value (`known` false). */
export interface FieldChange {
  field: string;
  known: boolean;
  before?: unknown;
  after?: unknown;
}

/**
 * Why an item a stopped run never sent is skipped (docs/runs.md, "runs show"): `runs resume` sends
 * it, but not of a run that read stdin or a pipe (`piped`), which it cannot read again, nor one the
 * local checks refuse (`refused`): the resume refuses it as the run would have.
 */
export function notSentReason(
  stoppedByMaxErrors: boolean,
  run: string | undefined,
  storeGone = false,
  piped = false,
  refused = false,
): string {
  if (stoppedByMaxErrors) return `${NOT_SENT} the run stopped after --max-errors failures`;
  const way = storeGone
    ? ` ${STORE_GONE}`
    : run === undefined
      ? ''
      : piped
        ? ' (its input, stdin or a pipe, cannot be read again: send it from a file)'
        : refused
          ? ` (the local checks refuse it: examctl runs resume ${run} refuses it, failed, for the problems that follow)`
          : ` (examctl runs resume ${run} sends it)`;
  return `${NOT_SENT} the run stopped before it${way}`;
}

/** Why a run that read stdin or a pipe (its journal's `file` is `-`) cannot be resumed, and the way on. */
export function pipedInputWay(run: string): string {
  return (
    `read its input from stdin or a pipe (--file -, a FIFO, <(...)), which cannot be read again, so it cannot be resumed; ` +
    `examctl runs show ${run} lists what was done: send the rest from a file`
  );
}

/** An item whose request met the run's stopping failure: a lock's refusal by its code only, else its own words. */
export function stoppedItemReason(error: Error): string {
  return error instanceof StoreLockedError
    ? `${NOT_SENT} the run was refused with ${error.code} (its error says why)`
    : error.message;
}

const NOT_SENT = 'not sent:';
/** The way on where a run's store is gone (docs/store.md). */
const STORE_GONE = '(its store was replaced or is gone: run the file again)';

/** An item skipped only because its run stopped before it (`notSentReason`): counted, never listed. */
export function isNotSentItem(item: Pick<ReportItem, 'status' | 'errors'>): boolean {
  return item.status === 'skipped' && item.errors.length === 1 && item.errors[0]!.message.startsWith(NOT_SENT);
}

/** Why an item without a definite answer (`transient` in the journal) is skipped, live and in `runs show`. */
export function noDefiniteAnswerReason(why: string, run: string | undefined): string {
  const resend = run === undefined ? '' : ` (examctl runs resume ${run} sends it again)`;
  return `not done: the service gave no definite answer (${why === '' ? 'network failure, 429 or 5xx after retries' : why}); it may have been applied${resend}`;
}

export type ReportTarget = { kind: 'local'; store: string } | { kind: 'remote'; baseUrl: string };

/** The target's identity (docs/sync.md, "The sync memory"): a URL as the URL parser spells it, no final `/`. */
export function targetIdentity(target: ReportTarget, platform = process.platform): string {
  if (target.kind === 'local') return `local ${platform === 'win32' ? target.store.toLowerCase() : target.store}`;
  const { baseUrl } = target;
  return `remote ${(URL.canParse(baseUrl) ? new URL(baseUrl).href : baseUrl).replace(/\/+$/, '')}`;
}

/** A real run's ok and partial items by action (docs/cli.md, "Created and updated"): `created`, `updated`... */
export interface ReportSummary extends Partial<Record<ItemAction, number>> {
  total: number;
  ok: number;
  partial: number;
  failed: number;
  skipped: number;
  /** Remote runs: requests retried (each retry once), and by cause (`503`, `network`, `timeout`...). */
  retried?: number;
  retriedByCause?: Record<string, number>;
  /** Every item by its action (plan-actions.ts): the counts the plan file, the page and the terminal say. */
  actions?: ActionCounts;
  /** --prune-memberships: items that removed a link or flag examctl sent (docs/sync.md); JSON report only. */
  movers?: number;
}

/** The report's fixed head: what ran, where, and whether anything could change. */
export interface ReportHeader {
  command: string;
  target: ReportTarget;
  /** `--store`, `EXAMCTL_BASE_URL`, `profile hr`, `built-in` (docs/remote.md, "Where each setting comes from"). */
  targetFrom?: string;
  /** Where a token not a profile's was read: `EXAMCTL_TOKEN`, `--token-file` (never the token). */
  tokenFrom?: string;
  /** The profile the run took settings from, or the default profile it set aside. */
  profile?: ProfileNote;
  dryRun: boolean;
  /** A dry run against a local store: its engine plans, so there is a plan even when no record is valid. */
  plans?: true;
  /** The run's id when it is journaled (docs/runs.md). */
  run?: string;
  /** `runs show` without the input: the items counted, not listed (docs/runs.md, "runs show"). */
  unlisted?: { count: number | null; reason: string };
  unlistedUnchanged?: { count: number; reason: string };
  /** A run that decides from the sync memory (--changed-only, --disable-missing): what it found. */
  syncMemory?: SyncMemoryNote;
}

/** A profile as a run used it (how chosen, its settings); `used` false: why the default profile was not. */
export interface ProfileNote {
  name: string;
  /** `--profile`, `EXAMCTL_PROFILE`, `the default profile`, `the run's journal`. */
  via: string;
  used: boolean;
  why?: string;
  settings: Record<string, unknown>;
}

/** The sync memory a run decided from (docs/sync.md); without the run's population it is none for this run. */
export interface SyncMemoryNote {
  /** What the memory is of (its command: user sync, schedule push, collection add): what a gap in it costs differs. */
  kind?: 'users' | 'schedules' | 'collections';
  found: boolean;
  file: string;
  remembered: number;
  population: string | null;
  populationFound: boolean;
  /** A run of this population the memory misses (docs/sync.md, "A state service"). */
  missesRun?: { run: string; since: string; later?: true; cut?: true };
  /** Of another store (it holds none of the store heads the memory saw): not used. */
  replaced?: true;
  /** That memory left as it is (a run --require-memory refuses for it), not begun anew. */
  left?: true;
  /** Other memories of the store (another path): each file (its path). */
  otherMemories?: string[];
}

/** The original CSV row(s) behind an item, so a CSV report can give them back with a status. */
export interface SourceRow extends RawRow {
  line: number;
  /** The fields as read (dates in the API's form): a workbook writes a date cell as the date the run read. */
  fields?: Readonly<Record<string, unknown>>;
  /** The cells behind each mapped field, or at fault (InputRecord.cellsOf): a dry run's workbook marks them. */
  cellsOf?: Readonly<Record<string, readonly string[]>>;
}

export interface ReportEntry {
  item: ReportItem;
  rows?: readonly SourceRow[];
}

export interface ReportSink {
  /** A promise given back is waited for before the next item or `finish`. */
  item(entry: ReportEntry): void | Promise<void>;
  finish(summary: ReportSummary): void | Promise<void>;
  /** The header of the CSV input, also when no row of it is reported (--only-failed, all ok). */
  sourceHeader?(header: readonly string[], dialect?: CsvDialect): void;
  /** The run stopped early (a 403, Ctrl-C): called before `finish`. */
  stopped?(error: unknown): void;
  /** Dropped unfinished (its file failed, or the run): what it holds aside goes. */
  discard?(): Promise<void>;
}
