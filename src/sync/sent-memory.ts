import { resolve } from 'node:path';
import { DEFAULT_LOCK_TIMEOUT_MS, lockTimeoutFromEnv } from '../system/lock.js';
import { describeTarget, type SummaryNote } from '../report/report-writers.js';
import { type SyncMemoryNote } from '../report/run-report.js';
import { UsageError } from '../system/errors.js';
import { terminalLine } from '../formats/terminal-text.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { requestDigest, resolveSyncDir, sameServerElsewhere, SyncMemory, type MemoryEntry, type SyncKind } from './sync-memory.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { Outcome, Unit } from '../pipeline/record-job.js';
import { KnownIds, rememberedAction, type OnlyWhich } from './known-ids.js';
import { isUnchangedNote, unchangedNote } from '../runs/journal-lines.js';
import { targetInstance } from '../context/target.js';
import { type TargetOf } from '../context/resolved-target.js';

/**
 * --changed-only's word in the summary of every command that feeds a sync memory: its unchanged
 * items carry the note naming the run that sent them (a rebuilt report's too).
 */
export const NOT_SENT_NOTE: SummaryNote = { counts: (item) => item.action === 'unchanged' && isUnchangedNote(item.note), words: () => 'unchanged (not sent)' };

/**
 * Whether an acknowledged outcome feeds the memory: not an item a resume keeps as unchanged (not
 * sent by this run). Its entry was in the memory when it was judged; if the memory lost it since
 * (`synced forget`, a store replaced), putting it back would claim a request this target may
 * never have had (docs/sync.md, "The sync memory").
 */
export function feedsMemory(outcome: { action?: string }, kept: boolean): boolean {
  return !(kept && outcome.action === 'unchanged');
}

/** The flags every command that feeds a sync memory reads. */
export interface SyncFlags {
  changedOnly?: boolean;
  /** Refuse (exit 2) a deciding run that finds no memory (docs/ci.md). */
  requireMemory?: boolean;
  syncDir?: string;
  runsDir?: string;
  dryRun?: boolean;
  /** --only-new or --only-existing (known-ids.ts): the memory decides on a remote target. */
  only?: OnlyWhich | undefined;
}

/** The sync directory of an invocation (docs/sync.md), a relative one taken from where examctl was started. */
export function syncDirOf(syncDir: string | undefined, runsDir: string | undefined, deps: Pick<CommandDeps, 'env' | 'cwd'>): string {
  return resolve(deps.cwd, resolveSyncDir(syncDir, deps.env, resolveRunsDir(runsDir, deps.env as NodeJS.ProcessEnv)));
}

/**
 * What every command that feeds a sync memory shares (docs/sync.md): the memory opened before
 * the run (under the target's lock when it decides what is sent), --changed-only's verdict on a
 * unit, and each acknowledged request remembered by its digest.
 */
export class SentMemory<P> {
  protected memory: SyncMemory | undefined;
  /** What a deciding run found, kept past close for the report (docs/ci.md). */
  private found: SyncMemoryNote | undefined;
  /** The digests --changed-only computed for units it sends, until they are acknowledged. */
  private readonly digests = new WeakMap<object, string>();
  private readonly unsentByRun = new Map<string, NonNullable<Unit<P>['unsent']>>();
  /** Whether the memory held any id when opened: without, a remote answer's action is not known. */
  private heldAny = false;
  /** --only-new / --only-existing: which ids the target holds (`openKnown`). */
  private known: KnownIds | undefined;
  /** What the memory said of each payload's id before its intent was written (`intend`): `answered`'s verdict. */
  private readonly actionsBefore = new WeakMap<object, 'created' | 'updated' | null>();

  constructor(
    private readonly kind: SyncKind,
    protected readonly flags: SyncFlags,
    protected readonly deps: CommandDeps,
    private readonly target: TargetOf,
    /** The request a unit's payload sends: what the digest is of. */
    private readonly requestOf: (payload: P) => unknown,
  ) {}

  /** Opens the memory; `decides`: this run reads it to choose what is sent, so it holds the target's lock. */
  async open(decides: boolean): Promise<SyncMemory> {
    const resolved = await this.target();
    // --only-new / --only-existing on a remote target: the memory chooses what is sent.
    decides ||= this.flags.only !== undefined && resolved.kind === 'remote';
    const target = resolved.report;
    const dryRun = this.flags.dryRun ?? false;
    const say = (message: string) => void this.deps.stderr.write(`${terminalLine(message)}\n`);
    let otherInstance = false;
    this.memory = await SyncMemory.open(syncDirOf(this.flags.syncDir, this.flags.runsDir, this.deps), target, this.kind, {
      lock: decides && !dryRun,
      lockTimeoutMs: lockTimeoutFromEnv(this.deps.env) ?? DEFAULT_LOCK_TIMEOUT_MS,
      readOnly: dryRun,
      onWait: say,
      // A local store's instance: a memory of the store it replaced is not used (docs/sync.md).
      ...instanceOption(await targetInstance(resolved, !dryRun, this.deps)),
      onOtherInstance: (message) => {
        otherInstance = true;
        say(message);
      },
    });
    const remembered = this.memory.entries.size;
    this.heldAny = remembered > 0;
    this.found = decides ? { found: remembered > 0, file: this.memory.file, remembered } : undefined;
    if (decides && remembered === 0 && !otherInstance) {
      // The same server under another name has a memory: said, as the likely cause.
      for (const other of await sameServerElsewhere(syncDirOf(this.flags.syncDir, this.flags.runsDir, this.deps), target, this.kind)) {
        say(`note: the sync directory holds a memory for ${describeTarget(other)}: if that is this server under another name, give the base URL as it was given then (each spelling of a host has a memory of its own)`);
      }
    }
    if (decides && remembered === 0 && this.flags.requireMemory) {
      await this.close();
      throw new UsageError(
        terminalLine(
          `--require-memory: no sync memory for ${describeTarget(target)} (${otherInstance ? `${this.found?.file} is of another instance of this store, replaced since` : `looked for ${this.found?.file}`}); nothing was sent. ` +
            'Restore it (a CI cache: docs/ci.md, "A nightly sync"), point --sync-dir or EXAMCTL_SYNC_DIR at it, or run once without --require-memory to start it',
        ),
      );
    }
    if (this.flags.changedOnly && remembered === 0) {
      await this.deps.stderr.write(`${terminalLine(`--changed-only: no sync memory for ${describeTarget(target)} yet, so every record is sent (this run starts it)`)}\n`);
    }
    return this.memory;
  }

  /** The memory a deciding run found (undefined for a run that only feeds it), for the report's sinks. */
  note(): SyncMemoryNote | undefined {
    return this.found;
  }

  /**
   * With --changed-only, a unit whose request this target acknowledged last time is not sent.
   * `entry`: what the memory holds for the unit's id, when the caller peeked already.
   */
  unit(unit: Unit<P>, entry = this.flags.changedOnly && unit.prepared.ok && unit.id !== null ? this.memory?.peek(unit.id) : undefined): Unit<P> {
    if (!this.flags.changedOnly || entry === undefined || entry.disabled === true || !unit.prepared.ok) return unit;
    const digest = this.digestOf(unit.prepared.value);
    if (entry.digest !== digest) {
      // Sent: its digest is kept for when it is acknowledged (an unchanged unit's never is: no entry for it).
      this.digests.set(unit.prepared.value as object, digest);
      return unit;
    }
    return { ...unit, unsent: this.unsentSince(entry.run) };
  }

  /** An unchanged unit's mark: one object per run it matched (a night's unchanged rows share a few). */
  protected unsentSince(run: string): NonNullable<Unit<P>['unsent']> {
    let unsent = this.unsentByRun.get(run);
    if (unsent === undefined) {
      unsent = { note: unchangedNote(run), since: run };
      this.unsentByRun.set(run, unsent);
    }
    return unsent;
  }

  /** Remembers what the target acknowledged; a resume's kept outcome only when the memory lost it. */
  acknowledged(unit: Unit<P>, payload: P, run: string, kept: boolean, more: Omit<MemoryEntry, 'digest' | 'run'> = {}): void {
    const memory = this.memory;
    if (memory === undefined || unit.id === null) return;
    const digest = this.digestOf(payload);
    if (kept && memory.get(unit.id)?.digest === digest) return;
    memory.record(unit.id, { digest, run, ...more });
  }

  /**
   * Before a unit's request goes out (RecordJob.intend; docs/sync.md, "A request cut short"):
   * when its answer could be lost to a kill with nothing recorded after, what the memory must
   * already believe, so the next run neither judges the row unchanged nor loses what the request
   * may have done. Written only where it differs from the entry (a changed request); durable
   * before the request goes (`intentsDurable`). Returns whether a line was written.
   */
  intend(unit: Unit<P>, run: string): boolean {
    const memory = this.memory;
    if (memory === undefined || unit.id === null || !unit.prepared.ok) return false;
    const entry = memory.get(unit.id);
    this.actionsBefore.set(unit.prepared.value as object, rememberedAction(entry, this.heldAny) ?? null);
    const intent = this.intentOf(unit.prepared.value, entry, run);
    if (intent === undefined) return false;
    memory.record(unit.id, intent);
    return true;
  }

  /**
   * An answer that does not say what it did (a remote one; docs/sync.md, "Created or updated"):
   * `created` or `updated` as the memory held the id before the request went, else `sent`. An
   * answer that says (the local engine's), a failure and a dry run's are left as they are.
   */
  answered(payload: P, id: string | null, outcome: Outcome): Outcome {
    if (outcome.status === 'failed' || outcome.action !== undefined || this.flags.dryRun === true) return outcome;
    const before = this.actionsBefore.get(payload as object);
    // No intent written for it (a run without a journal): the memory is still as it was before.
    const action = before !== undefined ? before : id === null ? undefined : rememberedAction(this.memory?.get(id), this.heldAny);
    return { ...outcome, action: action ?? 'sent' };
  }

  /** What `intend` wrote, on disk: the requests it was written for may go. */
  intentsDurable(): Promise<void> {
    return this.memory?.durable() ?? Promise.resolve();
  }

  /**
   * The entry a unit's request may leave behind, unanswered: the remembered one with its digests
   * cleared (its row goes again next time, whatever the file says), unless the request is the one
   * acknowledged already. None for an id not remembered: its row is sent next time anyway.
   */
  protected intentOf(payload: P, entry: MemoryEntry | undefined, _run: string): MemoryEntry | undefined {
    if (entry === undefined || entry.digest === '' || entry.digest === this.keptDigestOf(payload)) return undefined;
    const { raw: _raw, ...rest } = entry;
    return { ...rest, digest: '' };
  }

  /**
   * A request that may have changed the target without an ok (RecordJob.unsettled): the id's
   * entry keeps its links and run but loses its digests, so the next night sends the row whatever
   * the file says, also when it says again what was acknowledged before (a partial rename
   * put back in the file must be sent). Only ever makes more go.
   */
  unsettled(unit: Unit<P>): void {
    const memory = this.memory;
    if (memory === undefined || unit.id === null) return;
    const entry = memory.get(unit.id);
    if (entry === undefined || entry.digest === '') return;
    const { raw: _raw, ...rest } = entry;
    memory.record(unit.id, { ...rest, digest: '' });
  }

  async close(): Promise<void> {
    const memory = this.memory;
    const known = this.known;
    this.memory = undefined;
    this.known = undefined;
    await known?.close();
    await memory?.close();
  }

  /**
   * --only-new / --only-existing (docs/sync.md, "New and existing"): after `open`, before
   * anything is sent, what the target holds; refused (exit 2) when nothing can tell.
   */
  async openKnown(what: 'users' | 'schedules'): Promise<void> {
    if (this.flags.only === undefined) return;
    this.known = await KnownIds.open(what, this.flags.only, await this.target(), this.memory, this.heldAny, this.deps);
  }

  /** A unit --only-new or --only-existing does not send: ok, action `left`, with why; any other as it is. */
  leaveOut(unit: Unit<P>): Unit<P> {
    const only = this.flags.only;
    if (only === undefined || this.known === undefined || !unit.prepared.ok || unit.unsent !== undefined) return unit;
    const left = this.known.leftOut(only, unit.id);
    return left === undefined ? unit : { ...unit, unsent: { note: left.note, action: left.action } };
  }

  protected digestOf(payload: P): string {
    return this.digests.get(payload as object) ?? requestDigest(this.requestOf(payload));
  }

  /**
   * The digest, kept for when the request is acknowledged: `intentOf` compares it before the
   * request goes, the acknowledgement records it (a joiner's, never compared, is not kept: a
   * first import would hold one per user).
   */
  protected keptDigestOf(payload: P): string {
    let digest = this.digests.get(payload as object);
    if (digest === undefined) {
      digest = this.digestOf(payload);
      this.digests.set(payload as object, digest);
    }
    return digest;
  }
}

function instanceOption(instance: string | undefined): { instance?: string } {
  return instance === undefined ? {} : { instance };
}
