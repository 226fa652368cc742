import { constants } from 'node:fs';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { openRegularFile } from '../system/regular-file.js';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { StoreLockedError, StoreReplacedError } from '../system/errors.js';
import { DSYNC_FLAG, appendDurably } from '../system/durable-write.js';
import { describeHolder, LOCK_FILE, readLockInfo, StoreLock } from '../system/lock.js';
import type { ReportSummary } from '../report/run-report.js';
import {
  type EndReason,
  type ItemRef,
  type OutcomeLine,
  type RunHeaderLine,
  type RunJournalLine,
  type UnchangedLine,
} from './journal-lines.js';
import { RunJournalError, RunJournalWriteError } from './run-errors.js';
import { JournalGroupEncoder, outcomeBody, refBody } from './journal-encoder.js';
import { newRunId } from './run-id.js';
import { BUILD_ID } from '../version.js';
import { RM_RETRY } from '../system/busy-retry.js';
import { describeSystemError } from '../system/system-error-words.js';

/** `<runs dir>/<id>/journal.ndjson`, beside the run's LOCK. */
export const JOURNAL_FILE = 'journal.ndjson';

export function journalPath(runsDir: string, id: string): string {
  return join(runsDir, id, JOURNAL_FILE);
}

interface GroupCommit {
  /** An outcome waits at most this long for its fsync, or until `maxLines` are queued; sent lines never wait. */
  maxDelayMs: number;
  maxLines: number;
}

/** docs/runs.md, "Group commit": short next to a remote request; locally one fsync carries hundreds of lines. */
const DEFAULT_GROUP_COMMIT: GroupCommit = { maxDelayMs: 20, maxLines: 1024 };

/** Durable when the write returns (durable-write.ts): a write then an fdatasync would cost two thread-pool trips. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | DSYNC_FLAG;
const REOPEN_FLAGS = constants.O_RDWR | DSYNC_FLAG;

export type NewRunHeader = Pick<
  RunHeaderLine,
  | 'command'
  | 'options'
  | 'target'
  | 'input'
  | 'chosenIds'
  | 'profile'
  | 'origin'
  | 'syncDir'
  | 'instance'
  | 'storeHead'
  | 'plan'
> & {
  units?: number;
};

/** The run's lock: one process at a time runs or resumes a run; the holder's pid proves it alive. */
export async function lockRun(dir: string, id: string): Promise<StoreLock> {
  const lock = new StoreLock(dir, 0);
  await lock.acquire().catch(async (error: unknown) => {
    if (!(error instanceof StoreLockedError)) throw error;
    const holder = await readLockInfo(join(dir, LOCK_FILE));
    const who = holder === 'missing' ? 'another process' : describeHolder(holder);
    throw new RunJournalError(`run ${id} is being run by ${who}; wait for it to end (or stop it) before resuming`);
  });
  return lock;
}

/** Writes a run's journal (docs/runs.md, "Group commit"); a failed write fails every later call: the run stops. */
export class RunJournal {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  /** A flush was asked for during one: the next group goes right after it. */
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private commitTimer: NodeJS.Timeout | undefined;
  private readonly encoder = new JournalGroupEncoder();
  private failure: RunJournalError | RunJournalWriteError | undefined;
  private closed = false;

  private constructor(
    readonly id: string,
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly lock: StoreLock,
    private readonly commit: GroupCommit,
  ) {}

  /** Creates the run (directory 0700, journal 0600), takes its lock and writes the header, durably. */
  static async start(
    runsDir: string,
    header: NewRunHeader,
    commit: GroupCommit = DEFAULT_GROUP_COMMIT,
    now: Date = new Date(),
  ): Promise<RunJournal> {
    await mkdir(runsDir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
      throw cannotWrite(runsDir, error);
    });
    let id = newRunId(now);
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(join(runsDir, id), { mode: 0o700 });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 5)
          throw cannotWrite(join(runsDir, id), error);
        id = newRunId(now);
      }
    }
    // From here a failure (a full disk) removes the run's directory: no empty run is left.
    const abandon = async (error: unknown): Promise<never> => {
      await rm(join(runsDir, id), { recursive: true, force: true, ...RM_RETRY }).catch(() => undefined);
      throw cannotWrite(join(runsDir, id), error);
    };
    const file = journalPath(runsDir, id);
    let lock: StoreLock | undefined;
    let handle: FileHandle;
    try {
      lock = await lockRun(join(runsDir, id), id);
      handle = await open(file, CREATE_FLAGS, 0o600);
    } catch (error) {
      await lock?.release().catch(() => undefined);
      return abandon(error);
    }
    const journal = new RunJournal(id, file, handle, lock, commit);
    const line: RunHeaderLine = {
      t: 'run',
      // 2 for a `--changed-only` run (`unchanged` lines), else 1: an older examctl shows the rest (docs/runs.md).
      v: header.options.changedOnly === true ? 2 : 1,
      id,
      ...header,
      startedAt: now.toISOString(),
      pid: process.pid,
      host: hostname(),
      build: BUILD_ID,
    };
    try {
      await journal.append(line);
    } catch (error) {
      await journal.close().catch(() => undefined);
      return abandon(error);
    }
    return journal;
  }

  /** Takes a run over for a resume: its lock, then (`reopen`) a torn last line cut off and a `resume` line. */
  static async lockForResume(runsDir: string, id: string) {
    // Held by a live run: its own message. A lock that cannot be written (a full disk): exit 3.
    const lock = await lockRun(join(runsDir, id), id).catch((error: unknown) => {
      throw cannotWrite(join(runsDir, id), error);
    });
    const file = journalPath(runsDir, id);
    return {
      release: () => lock.release(),
      reopen: async (validLength: number): Promise<RunJournal> => {
        let handle: FileHandle | undefined;
        try {
          // Checked by run-trust.ts before; opened as a regular file again so a swap since cannot redirect it.
          handle = await openRegularFile(file, { flags: REOPEN_FLAGS });
          await handle.truncate(validLength);
          // The cut itself made durable once, before the appends that O_DSYNC makes durable.
          await handle.datasync();
          const journal = new RunJournal(id, file, handle, lock, DEFAULT_GROUP_COMMIT);
          journal.position = validLength;
          await journal.append({
            t: 'resume',
            at: new Date().toISOString(),
            pid: process.pid,
            host: hostname(),
            build: BUILD_ID,
          });
          return journal;
        } catch (error) {
          await handle?.close().catch(() => undefined);
          await lock.release();
          throw cannotWrite(file, error);
        }
      },
    };
  }

  private position = 0;

  /** Records items as sent; resolves once the lines are durable. */
  sent(items: readonly ItemRef[]): Promise<void> {
    for (const item of items) this.queueBody(refBody('sent', item));
    return this.flush();
  }

  /** Withdraws items whose requests never went out or met the failure that stopped the run (`reason`). */
  unsent(items: readonly (ItemRef & { reason?: string })[]): void {
    for (const item of this.failure ? [] : items) this.queueBody(refBody('unsent', item, item.reason));
  }

  /** Queues an item's outcome, on disk within the group commit's delay. */
  outcome(outcome: Omit<OutcomeLine, 't'>): void {
    this.queueBody(outcomeBody(outcome));
    if (this.pending.length >= this.commit.maxLines) this.kick();
    else if (this.timer === undefined && !this.again) this.armTimer();
  }

  private armTimer(): void {
    // One timer for the journal's life, restarted per group (a remote run writes hundreds of groups).
    this.timer =
      this.commitTimer === undefined
        ? setTimeout(() => this.timer !== undefined && this.kick(), this.commit.maxDelayMs).unref()
        : this.commitTimer.refresh();
    this.commitTimer = this.timer;
  }

  /** Unchanged units (--changed-only) since the last group: one `unchanged` line. */
  private same: { r: number[]; since: string[] } | undefined;

  /** Queues a unit unchanged since run `since`: no line of its own (docs/runs.md, "The journal"). */
  unchanged(n: number, since: string): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new RunJournalError(`run journal ${this.file} is closed`);
    const same = (this.same ??= { r: [] as number[], since: [] as string[] });
    // The runs a group's units matched: one or two, searched, not indexed.
    let s = same.since.indexOf(since);
    if (s === -1) s = same.since.push(since) - 1;
    const r = same.r;
    const last = r.length - 3;
    if (last >= 0 && r[last]! + r[last + 1]! === n && r[last + 2] === s) r[last + 1]! += 1;
    else r.push(n, 1, s);
    if (r.length >= 3 * this.commit.maxLines) this.kick();
    else if (this.timer === undefined && !this.again) this.armTimer();
  }

  private sealUnchanged(): void {
    const same = this.same;
    if (same === undefined) return;
    this.same = undefined;
    const line: UnchangedLine = { t: 'unchanged', r: same.r, since: same.since };
    this.pending.push(JSON.stringify(line));
  }

  /** Ends the attempt, then closes; one the store's lock refused before any answer is `refused` (docs/runs.md). */
  async end(reason: EndReason, summary: ReportSummary, stopError?: unknown, nothingSent = false): Promise<void> {
    try {
      await this.append({
        t: 'end',
        at: new Date().toISOString(),
        reason,
        summary,
        ...(stopError instanceof StoreReplacedError && { stopped: 'store-replaced' }),
        ...(stopError instanceof StoreLockedError && nothingSent && { stopped: 'refused' }),
      });
    } finally {
      await this.close();
    }
  }

  /** The store's head as a resume's attempt begins, durably before its first request (docs/runs.md). */
  attemptHead(head: string): Promise<void> {
    return this.append({ t: 'head', head });
  }

  /** Closes without an end line (the run stays resumable), what is queued written. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.failure === undefined) await this.flush().catch(() => undefined);
    } finally {
      this.closed = true;
      this.timer = undefined;
      if (this.commitTimer !== undefined) clearTimeout(this.commitTimer);
      await this.handle.close().catch(() => undefined);
      await this.lock.release();
    }
  }

  /** A new run that stopped before sending anything: removed (never a resumed run, which has a history). */
  async discard(): Promise<void> {
    await this.close();
    await rm(dirname(this.file), { recursive: true, force: true, ...RM_RETRY });
  }

  private queueBody(body: string): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new RunJournalError(`run journal ${this.file} is closed`);
    this.pending.push(body);
  }

  private append(line: RunJournalLine): Promise<void> {
    this.sealUnchanged();
    this.queueBody(JSON.stringify(line));
    return this.flush();
  }

  /** Everything queued, on disk (nothing queued: a group of none, settled at once). */
  flush(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.kick();
    return done;
  }

  /** Starts a flush now, or right after the one in progress (outcomes alone wait for their timer). */
  private kick(): void {
    // Disarmed, not cleared: a cleared timer cannot be restarted, and one that fires disarmed does nothing.
    this.timer = undefined;
    if (this.flushing !== undefined) {
      this.again = true;
      return;
    }
    this.again = false;
    this.flushing = this.writeGroup().finally(() => {
      this.flushing = undefined;
      if (this.again || this.waiters.length > 0 || this.pending.length >= this.commit.maxLines) this.kick();
      else if ((this.pending.length > 0 || this.same !== undefined) && this.timer === undefined) this.armTimer();
    });
  }

  private async writeGroup(): Promise<void> {
    this.sealUnchanged();
    const lines = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    try {
      if (this.failure !== undefined) throw this.failure;
      if (lines.length > 0) {
        const bytes = this.encoder.encode(lines);
        await appendDurably(this.handle.fd, bytes, this.position);
        this.position += bytes.length;
      }
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      this.failure ??= cannotWrite(this.file, error);
      for (const waiter of waiters) waiter.reject(this.failure);
    }
  }
}

/** A journal failure as the run's error: one already said (a run held by another) as it is, else a failed write. */
function cannotWrite(path: string, error: unknown): RunJournalError | RunJournalWriteError {
  if (error instanceof RunJournalError || error instanceof RunJournalWriteError) return error;
  return new RunJournalWriteError(`cannot write the run journal ${path}: ${describeSystemError(error)}`);
}
