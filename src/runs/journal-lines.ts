import { resolve } from 'node:path';
import type { SourceRef } from '../input/record.js';
import type { ItemStatus, ReportHeader, ReportItem, ReportSummary, ReportTarget } from '../report/run-report.js';
import type { RecordedValue } from './recorded-options.js';
import { isPlainObject } from '../domain/field-rules.js';
import { isHead } from '../domain/store-head.js';
import { decodeChecksummedLine } from '../system/checksummed-line.js';
import { OUTCOME_STATUSES } from './item-index.js';

/** The recorded option holding the SHA-256 of the file option `name` names (JournalKeeping 'with-digest'). */
export function digestKey(name: string): string {
  return `${name}Sha256`;
}

interface DigestedFile {
  option: string | undefined;
  path: string;
  digest: string;
}

/**
 * The files a run read besides its input, each kept with its SHA-256 (docs/runs.md): a file option's (from the run's
 * directory), then its profile's map file if that shaped anything; `option` undefined for the map.
 */
export function digestedFiles(header: Pick<RunHeaderLine, 'options' | 'profile'>): DigestedFile[] {
  const { options, profile } = header;
  const cwd = typeof options.cwd === 'string' ? options.cwd : '.';
  const files = Object.entries(options).flatMap(([key, digest]): DigestedFile[] => {
    const option = key.slice(0, -'Sha256'.length);
    const given = options[option];
    const kept = key === digestKey(option) && typeof given === 'string' && typeof digest === 'string';
    return kept ? [{ option, path: resolve(cwd, given), digest }] : [];
  });
  const map = profile?.defaults.mapFile;
  if (typeof map === 'string' && profile?.mapFileSha256 !== undefined)
    files.push({ option: undefined, path: resolve(profile.configDir, map), digest: profile.mapFileSha256 });
  return files;
}

/** The newest journal format this examctl reads (3: may hold a `head` line); a reader refuses a newer one. */
const RUN_JOURNAL_VERSION = 3;

/** The input file as the run started: a resume refuses a file that changed. */
export interface InputFingerprint {
  path: string;
  size: number;
  sha256: string;
  /** The name its rows give it, where `path` is a copy read under another (apply: the file the plan's dry run read). */
  name?: string;
}

/** One unit of a run; `n`, its 0-based position among the input's units, is stable, so it is the item's key. */
export interface ItemRef {
  n: number;
  source: SourceRef;
  id: string | null;
}

/** A profile's input and output settings as a run read with them (ActiveProfile's). */
interface RecordedProfile {
  name: string;
  defaults: Record<string, unknown>;
  configDir: string;
  /** Its base URL then: a resume gives its token beside the run's typed --base-url only while it names it still. */
  baseUrl?: string;
  /** Its `mapFile`'s SHA-256 then; none if it shaped nothing. */
  mapFileSha256?: string;
}

/** First line of every journal; its fields: docs/runs.md, "The journal". */
export interface RunHeaderLine {
  t: 'run';
  v: number;
  id: string;
  command: string;
  options: Record<string, RecordedValue>;
  target: ReportTarget;
  input: InputFingerprint | null;
  units?: number;
  chosenIds?: true;
  profile?: RecordedProfile | null;
  origin?: Pick<ReportHeader, 'targetFrom' | 'tokenFrom' | 'profile'>;
  syncDir?: string;
  instance?: string;
  /** The store's head when the run began (local, served; docs/runs.md, "Applied before the interrupt"). */
  storeHead?: string;
  /** The plan an apply's run sends (its id; docs/plan.md, "Apply"): a resume checks each request against it. */
  plan?: string;
  startedAt: string;
  pid: number;
  host: string;
  build?: string;
}

/** Durable before the item's request goes out. */
interface SentLine extends ItemRef {
  t: 'sent';
}

/** Withdraws an item put on record as sent whose request never went out (docs/runs.md, "The journal"). */
export interface UnsentLine extends ItemRef {
  t: 'unsent';
  reason?: string;
}

/** What became of an item (the target's answer, or a local failure), in its report item's terms. */
export interface OutcomeLine extends ItemRef, Pick<ReportItem, 'errors' | 'action' | 'note' | 'removed'> {
  t: 'outcome';
  status: Exclude<ItemStatus, 'skipped'>;
  /** Network failure, 429 or 5xx after retries: a resume sends the item again. */
  transient: boolean;
  /** The store's head after the commit that holds the answer's changes (CallOptions.onCommitted), where it says. */
  committed?: string | undefined;
}

/** `--changed-only`'s units not sent: (first position, count, index into `since`) triples (docs/runs.md). */
export interface UnchangedLine {
  t: 'unchanged';
  r: number[];
  since: string[];
}

/** A unit judged against run `since`'s memory entry by run `run`: unchanged, or sent where it is its own entry. */
export function unsentVerdict(since: string, run: string | undefined): { action: 'unchanged' | 'sent'; note: string } {
  if (since !== run) return { action: 'unchanged', note: `unchanged since run ${since}: not sent (--changed-only)` };
  return {
    action: 'sent',
    note: 'acknowledged to the interrupted attempt of this run (its outcome line was lost): not sent again',
  };
}

/** Whether an item's note is unsentVerdict's: one the engine found unchanged may carry another. */
export function isUnchangedNote(note: string | undefined): boolean {
  return note !== undefined && note.startsWith('unchanged since run ') && note.endsWith(': not sent (--changed-only)');
}

/** The note of an item a resume found applied by the attempt before it: judged against the run's start head. */
export const APPLIED_BEFORE_INTERRUPT = 'applied by the interrupted attempt of run ';

/** The store's head as a resume's attempt began (docs/runs.md, "A store restored under a run"). */
interface HeadLine {
  t: 'head';
  head: string;
}

/** One per attempt after the first. */
interface ResumeLine {
  t: 'resume';
  at: string;
  pid: number;
  host: string;
  build?: string;
}

/** How an attempt ended: docs/runs.md, "The journal" (and what finishes a run: finishesRun). */
const END_REASONS = ['completed', 'max-errors', 'interrupted', 'closed-pipe', 'target-error'] as const;
export type EndReason = (typeof END_REASONS)[number];

export interface EndLine {
  t: 'end';
  at: string;
  reason: EndReason;
  summary: ReportSummary;
  /** Why a `target-error` (docs/runs.md, "States"). */
  stopped?: 'store-replaced' | 'refused';
}

export type RunJournalLine =
  | RunHeaderLine
  | SentLine
  | UnsentLine
  | OutcomeLine
  | UnchangedLine
  | HeadLine
  | ResumeLine
  | EndLine;

export function finishesRun(reason: EndReason): boolean {
  return reason === 'completed' || reason === 'max-errors';
}

const isItemRef = (value: Record<string, unknown>): boolean =>
  isCount(value.n) &&
  isPlainObject(value.source) &&
  typeof value.source.file === 'string' &&
  typeof value.source.line === 'number' &&
  (value.id === null || typeof value.id === 'string');

export const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isUnchangedLine = (body: Record<string, unknown>): boolean =>
  Array.isArray(body.r) &&
  body.r.length % 3 === 0 &&
  body.r.every(isCount) &&
  Array.isArray(body.since) &&
  body.since.every((run) => typeof run === 'string') &&
  body.r.every((value, k) => k % 3 !== 2 || (value as number) < (body.since as unknown[]).length);

/** A journal line decoded and checked; a reason when it is not a line this version writes. */
export function checkJournalLine(bytes: Buffer, first: boolean): RunJournalLine | string {
  const decoded = decodeChecksummedLine(bytes);
  if (!decoded.ok) return decoded.reason;
  const body = decoded.body;
  if (!isPlainObject(body) || typeof body.t !== 'string') return 'not a run journal line';
  if (first !== (body.t === 'run')) return first ? 'the first line is not a run header' : 'a second run header';
  const line = body as unknown as RunJournalLine;
  switch (body.t) {
    case 'run':
      if (typeof body.v !== 'number') return 'no format version';
      if (body.v > RUN_JOURNAL_VERSION)
        return `written by a newer examctl (journal format ${body.v}; this one reads ${RUN_JOURNAL_VERSION})`;
      if (
        typeof body.id !== 'string' ||
        typeof body.command !== 'string' ||
        !isPlainObject(body.target) ||
        !isPlainObject(body.options) ||
        typeof body.startedAt !== 'string'
      ) {
        return 'incomplete run header';
      }
      return line;
    case 'sent':
      return isItemRef(body) ? line : 'malformed sent line';
    case 'unsent':
      return isItemRef(body) && (body.reason === undefined || typeof body.reason === 'string')
        ? line
        : 'malformed unsent line';
    case 'outcome':
      return isItemRef(body) &&
        typeof body.status === 'string' &&
        (OUTCOME_STATUSES as readonly string[]).includes(body.status) &&
        Array.isArray(body.errors) &&
        typeof body.transient === 'boolean' &&
        (body.committed === undefined || isHead(body.committed))
        ? line
        : 'malformed outcome line';
    case 'unchanged':
      return isUnchangedLine(body) ? line : 'malformed unchanged line';
    case 'head':
      return isHead(body.head) ? line : 'malformed head line';
    case 'resume':
      return typeof body.at === 'string' ? line : 'malformed resume line';
    case 'end':
      return typeof body.at === 'string' &&
        typeof body.reason === 'string' &&
        (END_REASONS as readonly string[]).includes(body.reason) &&
        isPlainObject(body.summary)
        ? line
        : 'malformed end line';
    default:
      return `unknown line kind ${JSON.stringify(body.t).slice(0, 40)}`;
  }
}
