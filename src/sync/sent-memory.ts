import { ErrorCode } from '../domain/codes.js';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lockTimeoutFromEnv } from '../system/lock.js';
import {
  describeTarget,
  FEEDING_COMMAND,
  otherMemoriesSentence,
  missedRunSentence,
  populationWords,
  type SummaryNote,
} from '../report/report-writers.js';
import { type ReportTarget, type SourceRow, type SyncMemoryNote } from '../report/run-report.js';
import type { Problem } from '../domain/problem.js';
import { isDryRunStatus, reportRunOf, statusColumnOf } from '../formats/report-csv-contract.js';
import { messageOf, UsageError } from '../system/errors.js';
import type { CodeOfExit } from '../system/error-codes.js';
import { say, terminalLine } from '../formats/terminal-text.js';
import { counted } from '../formats/number-format.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { finishedRunStart, laterFeedingRuns } from '../runs/read-run.js';
import { journaledSyncDir } from '../pipeline/run-journaling.js';
import {
  populationKey,
  requestDigest,
  type PeekedEntry,
  type PopulationRecord,
  type MemoryEntry,
  type SyncKind,
} from './memory-lines.js';
import type { MemoryEntries } from './memory-entries.js';
import { adoptSpelling, memoryFile, newestHeads, sameTargetElsewhere, standingOf } from './memory-files.js';
import type { SyncMemory } from './sync-memory.js';
import { LostZerosRule, type ZeroKind } from './lost-zeros.js';
import { fileDigest, isFedBack, refuseOldFile } from './replayed-file.js';
import type { InputRecord } from '../input/record.js';
import type { BatchedRecords } from '../input/batches.js';
import { inputPathOf } from '../pipeline/command-input.js';
import { openPlacedMemory } from './memory-place.js';
import { lossAdvice } from './memory-loss.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { Kept, Outcome, Unit } from '../pipeline/record-job.js';
import { KnownIds, onlyFlag, rememberedAction, type OnlyWhich } from './known-ids.js';
import { isUnchangedNote, unsentVerdict } from '../runs/journal-lines.js';
import { ensureStore, goneStore, memoryPlaceOf, storeHead } from '../context/target.js';
import {
  anyOf,
  attemptOf,
  batchTag,
  sentAgain,
  standingWords,
  undoneBy,
  type SeenHead,
  type Standing,
} from './store-standing.js';
import { type ResolvedTarget, type TargetOf } from '../context/resolved-target.js';

/** --changed-only's word in the summary: unchanged items carry the note naming the run that sent them. */
export const NOT_SENT_NOTE: SummaryNote = {
  counts: (item) => item.action === 'unchanged' && isUnchangedNote(item.note),
  words: () => 'unchanged (not sent)',
};

/** The flags every command that feeds a sync memory reads. */
export interface SyncFlags {
  changedOnly?: boolean;
  /** Refuse (exit 2) a deciding run that finds no memory (docs/ci.md). */
  requireMemory?: boolean;
  /** The population this file is the whole of (docs/sync.md, "Two exports, two populations"). */
  population?: string;
  syncDir?: string;
  runsDir?: string;
  dryRun?: boolean;
  /** --only-new or --only-existing (known-ids.ts): the memory decides on a remote target. */
  only?: OnlyWhich | undefined;
  /** Ids alike but for their leading zeros are really other users (lost-zeros.ts): not checked. */
  reallyNewIds?: boolean;
  /** The file an older run read may be run again (replayed-file.ts). */
  allowOldFile?: boolean;
}

/** A candidate a schedule push registered, to the leading-zeros guard: an id examctl sent there. */
const SCHEDULED: PeekedEntry = Object.freeze({ digest: '', run: '' });

/** How long the question of where an interrupted attempt left a served store may take (within the run's end bound). */
const END_HEAD_MS = 5_000;

/** What every command that feeds a sync memory shares (docs/sync.md): opened (locked to decide), --changed-only. */
export abstract class SentMemory<P> {
  protected memory: SyncMemory | undefined;
  /** Where it is kept: closing it there stores a state service's copy. */
  protected placed: Awaited<ReturnType<typeof openPlacedMemory>> | undefined;
  /** The run under way (`started`): recorded as the population's newest run, its intents written ahead. */
  private run: string | undefined;
  /** The SHA-256 of the run's input file (replayed-file.ts), recorded with its population. */
  private inputDigest = async (): Promise<string | undefined> => undefined;
  /** The input is a run report fed back: it records no file; a user it creates joins its row's run (stale-input.ts). */
  protected fedBack = false;
  /** The run's input records: a run report fed back records no file (`started`). */
  private records: (AsyncIterable<InputRecord> & Partial<BatchedRecords>) | undefined;
  /** What a deciding run found, kept past close for the report (docs/ci.md). */
  private found: SyncMemoryNote | undefined;
  /** The digests --changed-only computed for units it sends, until they are acknowledged. */
  private readonly digests = new WeakMap<object, string>();
  private readonly otherKinds = new Map<SyncKind, Promise<MemoryEntries | undefined>>();
  /** The memory's populations (`laterRequest`). */
  protected populations: Map<string, PopulationRecord> | undefined;
  private readonly unsentByRun = new Map<string, NonNullable<Unit<P>['unsent']>>();
  /** The memory held ids and this population's record when opened: else a remote answer's action is unknown. */
  private heldAny = false;
  /** --only-new / --only-existing: which ids the target holds (found by `open`). */
  private known: KnownIds | undefined;
  /** The sync directory the memory is kept in (none: a state service). */
  private syncDir: string | undefined;
  /** This attempt's tag (store-standing.ts, SeenHead): each entry it acknowledges carries it. */
  private readonly attempt = randomBytes(6).toString('base64url');
  /** The store's head when opened (none: it cannot say), and how to read it again. */
  private head: string | undefined;
  /** The store said where it stands against this population's heads (`judgeStore`): what it changed is known. */
  protected storeStands = false;
  private headOf = async (): Promise<string | undefined> => undefined;
  /** This attempt's batch (store-standing.ts, batchTag): the next begins once one of its lines went to a write. */
  private batch = 0;
  private batchFrom = 0;
  private ackedInBatch = false;
  /** A batch begun whose head is not recorded yet: the head the first answer to a request sent since stood on. */
  private headWanted: number | undefined;
  /** Whether an acknowledgement is one a restored store lost (by this open's and earlier ones', for a resume). */
  private undone: (acked: string | undefined) => boolean = () => false;
  /** Entries the store's standing makes go again, as trusted: a resend of that very row says why. */
  private readonly goneAgain = new Map<string, MemoryEntry>();
  private againWhy = '';
  /** Each payload's entry before its intent (null: none): `answered`'s verdict, what `refused` puts back. */
  protected readonly entriesBefore = new WeakMap<object, MemoryEntry | null>();

  constructor(
    private readonly kind: SyncKind,
    protected readonly flags: SyncFlags,
    protected readonly deps: CommandDeps,
    protected readonly target: TargetOf,
    /** The request a unit's payload sends: what the digest is of. */
    private readonly requestOf: (payload: P) => unknown,
  ) {}

  /** Opens the memory; `decides`: this run reads it to choose what is sent, so it holds the target's lock. */
  async open(decides: boolean, acts = false): Promise<SyncMemory> {
    const resolved = await this.target();
    // --only-new / --only-existing on a remote target: the memory chooses what is sent.
    decides ||= this.flags.only !== undefined && resolved.kind === 'remote';
    const othersWords = await this.placeMemory(resolved, decides, acts);
    const newest = await this.readPopulation(decides);
    await this.sayWhatIsMissing(resolved.report, decides, othersWords, newest !== undefined);
    // --only-new / --only-existing (docs/sync.md, "New and existing"): what the target holds; refused (exit 2) when
    // nothing can tell.
    if (this.flags.only !== undefined)
      this.known = await KnownIds.open(
        this.kind === 'users' ? 'users' : 'schedules',
        this.flags.only,
        resolved,
        this.memory!,
        this.heldAny,
        this.deps,
      );
    await this.judgeStore(resolved, newest);
    // The platform cannot say where it stands: its runs here are all there is to tell by.
    if (decides && newest !== undefined && this.head === undefined && resolved.kind === 'remote')
      await this.missedRun(resolved.report, newest);
    return this.memory!;
  }

  /** Opens the memory where it is kept (other spellings taken in); returns words naming those it did not take in. */
  private async placeMemory(resolved: ResolvedTarget, decides: boolean, acts: boolean): Promise<string | undefined> {
    const target = resolved.report;
    const dryRun = this.flags.dryRun ?? false;
    const tell = (message: string) => void say(this.deps, message);
    // A night that may not go without its memory (docs/ci.md) makes no store (a store moved: the job's path has none).
    if (decides && this.flags.requireMemory === true && resolved.kind === 'local' && !existsSync(resolved.store)) {
      // A memory naming a store there: the store is gone (E2301); none, no memory to require (E2501).
      const named = await goneStore(resolved.store, this.deps);
      throw new UsageError(
        `--require-memory: there is no local store at ${resolved.store}: moved? point the job at it; nothing was created or sent`,
        { code: named === undefined ? 'E2501' : 'E2301' },
      );
    }
    // Made before its memory opens: the first night records its head (store-standing.ts).
    if (!dryRun && resolved.kind === 'local') await ensureStore(resolved.store, this.deps);
    const lockTimeoutMs = lockTimeoutFromEnv(this.deps.env);
    const place = memoryPlaceOf(this.flags.syncDir, this.flags.runsDir, this.deps);
    const others: string[] = [];
    let refuses = false;
    const syncDir = place.kind === 'dir' && target.kind === 'local' ? place.syncDir : '';
    const elsewhere = syncDir ? await sameTargetElsewhere(syncDir, target, this.kind) : [];
    for (const other of elsewhere) {
      const where = `${other.file} (${describeTarget(other.target!)})`;
      const taken = await adoptSpelling(syncDir, target, other, lockTimeoutMs, dryRun);
      if (taken) tell(`note: ${dryRun ? 'a real run takes in' : 'took in'} ${where}: this store's memory`);
      else others.push(where);
      refuses ||= !taken && !other.moved;
    }
    const othersWords = otherMemoriesSentence(memoryFile(syncDir, target, this.kind), others);
    if (refuses && (acts || this.flags.requireMemory))
      throw new UsageError(terminalLine(`refused, nothing sent: ${othersWords}`));
    const population = this.flags.population;
    this.placed = await openPlacedMemory(place, target, this.kind, {
      lock: decides && !dryRun,
      lockTimeoutMs,
      readOnly: dryRun,
      from: dryRun && others.length === 0 ? elsewhere[0]?.file : undefined,
      onWait: tell,
      operation: `examctl ${FEEDING_COMMAND[this.kind]}${population === undefined ? '' : ` --population ${population}`}`,
      env: this.deps.env,
      onNote: (message) => tell(`note: ${message}`),
    });
    this.memory = this.placed.memory;
    this.syncDir = place.kind === 'dir' ? place.syncDir : undefined;
    this.found = decides
      ? {
          kind: this.kind,
          found: this.memory.entries.size > 0 || this.memory.populations().size > 0,
          file: this.placed.name,
          remembered: this.memory.entries.size,
          population: population ?? null,
          populationFound: false,
          ...(others.length > 0 && { otherMemories: others }),
        }
      : undefined;
    return others.length > 0 ? othersWords : undefined;
  }

  /** The record of this run's population (after a resume's checks again), and whether its ids are known new. */
  private async readPopulation(decides: boolean): Promise<PopulationRecord | undefined> {
    const memory = this.memory!;
    const population = this.flags.population;
    const populations = memory.populations();
    // A resume's checks again, now it holds the memory: a later run may have gone on record meanwhile.
    await this.closingOnFailure(async () => this.deps.resume?.check?.({ name: this.placed!.name, populations }));
    const newest = populations.get(populationKey(population));
    if (this.found !== undefined) this.found.populationFound = newest !== undefined;
    // `--population Staff` after nights of `staff`: a new population, said with the likely slip.
    const near =
      decides && newest === undefined
        ? [...populations.keys()].find((key) => key !== '' && key.toLowerCase() === population?.toLowerCase())
        : undefined;
    if (near !== undefined)
      await say(
        this.deps,
        `note: the memory has a record of --population ${near}: a population's name is exact (same letters, same case)`,
      );
    // An id the memory lacks is new only where the memory knows this population (not by another's
    // record, nor by a resumed run's own record: a resumed first run's ids are not known new).
    const resumed = this.deps.resume?.record.id;
    const ownRecord = resumed !== undefined && newest?.run === resumed;
    this.heldAny =
      memory.entries.size > 0 &&
      newest !== undefined &&
      (!ownRecord || memory.entries.populationsOfEntries(resumed).has(populationKey(population)));
    return newest;
  }

  /** Says what a deciding run misses of its memory; --require-memory refuses it. */
  private async sayWhatIsMissing(
    target: ReportTarget,
    decides: boolean,
    othersWords: string | undefined,
    populationFound: boolean,
  ): Promise<void> {
    const tell = (message: string) => void say(this.deps, message);
    const found = this.memory!.entries.size > 0 || this.memory!.populations().size > 0;
    if (othersWords !== undefined) tell(`warning: ${othersWords}`);
    if (decides && !found && target.kind === 'remote' && this.syncDir !== undefined) {
      // The same server under another name has a memory: said, as the likely cause.
      for (const other of await sameTargetElsewhere(this.syncDir, target, this.kind)) {
        tell(
          `note: the sync directory holds a memory for ${describeTarget(other.target!)}: if that is this server under another name, give the base URL as it was given then (each spelling of a host has a memory of its own)`,
        );
      }
    }
    const population = this.flags.population;
    if (decides && !populationFound && this.flags.requireMemory) {
      const name = this.placed!.name;
      const held = [...this.memory!.populations().keys()].sort().map((key) => key || 'the runs without --population');
      const missing = found
        ? `the sync memory of ${describeTarget(target)} (${name}) has no record of ${populationWords(population)}: it holds ${held.join(', ') || 'no population'}`
        : `no sync memory for ${describeTarget(target)} (looked for ${name})`;
      await this.refuse(
        `--require-memory: ${missing}; nothing was sent. ${lossAdvice(population, this.kind)}`,
        'E2501',
      );
    }
    if (this.flags.changedOnly && !populationFound) {
      const what = found
        ? `the sync memory of ${describeTarget(target)} has no record of ${populationWords(population)}`
        : `no sync memory for ${describeTarget(target)} yet`;
      tell(`--changed-only: ${what}, so every record is sent (this run starts it${found ? ' for them' : ''})`);
    }
  }

  /** Where the store stands against this population's heads (docs/sync.md, "Where the store stands"). */
  private async judgeStore(resolved: ResolvedTarget, newest: PopulationRecord | undefined): Promise<void> {
    const own = newest?.heads ?? [];
    // A population without heads of its own (its first night): another's newest tell only whether the store is another.
    const seen = own.length > 0 ? own : newestHeads(this.memory!.populations());
    // A dry run asks too where it has the token: the heads seen there say it is a store that tells one (`local serve`;
    // the platform tells none), and the read sends nothing, so the plan is what the real run does.
    const ask =
      seen.length > 0 && (this.flags.dryRun !== true || (resolved.kind === 'remote' && !!resolved.tokenSource));
    // Not asked: the plan is the memory's alone, which a restore there since would make wrong; said, not guessed.
    if (seen.length > 0 && !ask && resolved.kind === 'remote')
      await say(
        this.deps,
        `note: ${describeTarget(resolved.report)} says where it stands (the memory recorded its heads), but without a token this dry run did not ask it: the plan is what the memory records, and what a restore there undid since is not in it; give the token to plan what the real run sends`,
      );
    const { store, found: judged } = await standingOf(resolved, seen, this.memory!.instance, ask);
    this.head = store?.head;
    // After an interrupt too, bounded: without the head an attempt ended at, a store restored to a copy taken
    // during it would be taken to hold all it acknowledged (store-standing.ts, "ahead" of its start head).
    this.headOf = async () =>
      (await storeHead(resolved, [], false, this.deps.signal?.aborted ? AbortSignal.timeout(END_HEAD_MS) : undefined))
        ?.head;
    // Entries no head was recorded with (an older examctl's memory) on a store that says one: not known to be its,
    // unless its header names the store instance it was of (docs/sync.md, "Where the store stands").
    const unheaded =
      seen.length === 0 && store !== undefined && anyOf(this.memory!.entries.values(), (entry) => entry.digest !== '');
    const stands: Standing = own.length > 0 || judged.is === 'other' ? judged : { is: 'unknown' };
    this.storeStands = stands.is !== 'unknown';
    const words =
      unheaded && judged.is !== 'other'
        ? `the sync memory ${this.placed!.name} records no store head (an older examctl wrote it), so examctl cannot tell whether the ${resolved.report.kind} store holds what it records: everything it records is sent again`
        : standingWords(stands, resolved.report.kind, this.memory!.entries, this.kind);
    // Another store (or one restored to before every head seen): not its memory; --require-memory leaves it as it is.
    if (stands.is === 'other' && this.found !== undefined)
      Object.assign(this.found, { replaced: true }, (this.flags.requireMemory || this.flags.dryRun) && { left: true });
    if (stands.is === 'other' && this.flags.requireMemory)
      await this.refuse(
        `--require-memory: ${standingWords(stands, resolved.report.kind, [], this.kind, 'this memory is left as it is')}; nothing was sent. Point the run at the store this memory is of, or restore the store from its backup (docs/sync.md, "Where the store stands")`,
        'E2504',
      );
    // A served store cannot be read: which ids it holds, its memory no longer tells (docs/sync.md, "New and existing").
    if (words !== undefined && this.known && resolved.kind !== 'local') {
      const only = onlyFlag(this.flags.only!);
      await this.refuse(
        `${only}: ${words}, so examctl cannot tell which ${this.kind} it holds; nothing was sent. ` +
          `Restore its newest backup, or run once without ${only}: that run sends every record of the file (docs/sync.md, "New and existing")`,
      );
    }
    this.undone = undoneBy(stands.is === 'same' || stands.is === 'behind' ? stands.undone : []);
    const again = stands.is === 'other' ? undefined : unheaded ? () => true : sentAgain(stands, this.kind);
    // Where the store is ahead, this population's entries only: another's runs wrote the rest, and know it.
    const ours = (entry: MemoryEntry) =>
      stands.is !== 'ahead' || this.kind !== 'users' || entry.population === this.flags.population;
    const resend =
      again === undefined
        ? []
        : [...this.memory!.entries].filter(
            ([id, entry]) => entry.digest !== '' && ours(entry) && again(id, entry.acked),
          );
    for (const [id, entry] of resend) {
      this.goneAgain.set(id, entry);
      this.distrust(id, entry);
    }
    this.againWhy = unheaded
      ? "the memory (an older examctl's) records no store head to check it against"
      : stands.is === 'ahead'
        ? 'the store changed it after the newest head the memory saw (a killed run, or another writer)'
        : 'the store was restored to before that';
    // Another store's memory in a deciding run: its summary and report say so (noMemorySentence). What goes again
    // is counted, so a night after a restore says how much the restore cost. A resume judges what its own run
    // acknowledged by the head each commit made, and says that count itself (run-journaling.ts, lostWords).
    const resumed = this.deps.resume?.record.id;
    const ownAttempts = new Set(seen.filter(([, run]) => run === resumed).map(([, , tag]) => attemptOf(tag)));
    const said = resend.filter(([, entry]) => entry.acked === undefined || !ownAttempts.has(attemptOf(entry.acked)));
    if (
      words !== undefined &&
      !(stands.is === 'other' && this.found !== undefined) &&
      (said.length > 0 || resend.length === 0)
    )
      await say(
        this.deps,
        `note: ${words}${said.length > 0 ? `: ${counted(said.length, this.kind.slice(0, -1))}` : ''}`,
      );
    // Another store's memory is not this one's: begun anew, as with none (nothing left out, disabled or pruned).
    if (stands.is === 'other') for (const [id] of [...this.memory!.entries]) this.memory!.forget(id, '');
  }

  /** On the platform (no head): a memory missing a run this runs directory holds is said; --require-memory refuses. */
  private async missedRun(target: ReportTarget, newest: PopulationRecord): Promise<void> {
    const runsDir = resolveRunsDir(this.flags.runsDir, this.deps.env);
    const resumed = this.deps.resume?.record.id;
    // Cut short: the newest run's start is marked, its end not, but its journal here says it finished (an
    // older examctl's record marks neither: not judged). Its intents written ahead, taken in from a state
    // service, are all it sent.
    const cut =
      newest.ended === false && newest.run !== resumed && newest.run !== this.placed?.foldedRun
        ? await finishedRunStart(runsDir, newest.run).catch(() => undefined)
        : undefined;
    // Else older: the oldest run here of this command, target, population and sync directory started after it.
    const [later] =
      cut === undefined
        ? await laterFeedingRuns(runsDir, {
            after: newest.run,
            command: FEEDING_COMMAND[this.kind],
            target,
            population: this.flags.population,
            syncDir: journaledSyncDir(this.flags.syncDir, this.deps),
            except: resumed,
          }).catch(() => [])
        : [];
    const missesRun: SyncMemoryNote['missesRun'] =
      cut !== undefined
        ? { run: newest.run, since: cut, cut: true }
        : later && { run: later.id, since: later.startedAt, later: true };
    if (missesRun === undefined) return;
    this.found!.missesRun = missesRun;
    const words = missedRunSentence(this.placed!.name, this.flags.population ?? null, missesRun, this.kind);
    if (this.flags.requireMemory) await this.refuse(`--require-memory: ${words}; nothing was sent`, 'E2508');
    await say(this.deps, `warning: ${words}`);
  }

  /** Refuses the run (the memory closed first): exit 2 with `words` and `code` (E2000 when none fits better). */
  private refuse(words: string, code?: CodeOfExit<2>): Promise<never> {
    return this.closingOnFailure(() => Promise.reject(new UsageError(terminalLine(words), { code })));
  }

  /** An old night's file run again (replayed-file.ts; docs/sync.md, "Stale input"), not judged for a resume. */
  async refuseOldFile(
    file: string | undefined,
    allowed: boolean,
    records: AsyncIterable<InputRecord> & Partial<BatchedRecords>,
  ): Promise<void> {
    this.records = records;
    let digest: Promise<string | undefined> | undefined;
    if (file !== undefined) this.inputDigest = () => (digest ??= fileDigest(inputPathOf(file, this.deps)));
    const files = this.memory?.populations().get(populationKey(this.flags.population))?.files;
    await refuseOldFile(
      files,
      this.inputDigest,
      allowed || this.deps.resume !== undefined,
      this.flags.population,
      this.kind,
    );
  }

  /** Recorded as the population's newest run before anything is sent (docs/sync.md, "When the memory is lost"). */
  async started(run: string, head: string | undefined): Promise<void> {
    const memory = this.memory;
    if (memory === undefined) return;
    this.run = run;
    // Where the open did not ask (a first night through `local serve`): the head asked before the first request.
    this.head ??= head;
    // Known by the header the structure pass read (an .xlsx's first record costs its whole shared strings).
    this.fedBack = this.records !== undefined && (await isFedBack(this.records).catch(() => false));
    memory.recordPopulation(
      populationKey(this.flags.population),
      run,
      false,
      this.fedBack ? undefined : await this.inputDigest(),
      this.head === undefined ? undefined : [this.head, run, this.attempt, false],
    );
    await this.intentsDurable();
  }

  /**
   * A batch whose head is not recorded takes the head the next answer stood on: the request went after every earlier
   * acknowledgement, so that head holds all they wrote (a local store commits before it answers).
   */
  headWatch(): ((head: string) => void) | undefined {
    const batch = this.headWanted;
    if (batch === undefined) return undefined;
    return (head) => {
      const [memory, run] = [this.memory, this.run];
      if (this.headWanted !== batch || memory === undefined || run === undefined) return;
      this.headWanted = undefined;
      memory.recordHead(populationKey(this.flags.population), [head, run, batchTag(this.attempt, batch), false]);
    };
  }

  /** The next acknowledgement's tag: a new batch's once one of this batch's lines was written (one head awaited). */
  private ackTag(memory: SyncMemory): string {
    if (this.run !== undefined && this.head !== undefined && this.headWanted === undefined && memory.current) {
      if (this.ackedInBatch && memory.groups > this.batchFrom) {
        this.batch += 1;
        this.headWanted = this.batch;
        this.ackedInBatch = false;
      }
      if (!this.ackedInBatch) this.batchFrom = memory.groups;
    }
    this.ackedInBatch = true;
    return batchTag(this.attempt, this.batch);
  }

  /** The run's end marked on its population, durably, before its journal ends. */
  async ending(): Promise<void> {
    const [memory, run] = [this.memory, this.run];
    if (memory !== undefined && run !== undefined) {
      // Where it left the store unsaid: the next run judges from the head this attempt began at.
      const head = await this.headOf().catch((error: unknown) => void say(this.deps, `warning: ${messageOf(error)}`));
      const seen: SeenHead | undefined = head === undefined ? undefined : [head, run, this.attempt, true];
      memory.recordPopulation(populationKey(this.flags.population), run, true, undefined, seen);
    }
    await this.memory?.durable();
  }

  /** The leading-zeros rule (lost-zeros.ts) against this memory and the other kind's (unreadable: done without). */
  protected async zerosRule(kinds: readonly (Omit<ZeroKind, 'memory'> & Partial<Pick<ZeroKind, 'memory'>>)[]) {
    if (this.flags.reallyNewIds === true) return undefined;
    const users = this.kind === 'users' ? this.memory?.entries : await this.otherKind('users');
    const schedules = this.kind === 'schedules' ? this.memory?.entries : await this.otherKind('schedules');
    const candidates = registrations(schedules);
    const known = users === undefined || users.size === 0 ? undefined : users;
    const people =
      candidates.size === 0
        ? known
        : { peek: (id: string) => known?.peek(id) ?? (candidates.has(id) ? SCHEDULED : undefined) };
    return new LostZerosRule(kinds.map((kind) => ({ ...kind, memory: 'memory' in kind ? kind.memory : people })));
  }

  /** The target's memory of `kind`, read once, unlocked (none: unreadable, or a replaced store's). */
  protected otherKind(kind: SyncKind): Promise<MemoryEntries | undefined> {
    const read = async () => (await this.placed?.readKind(kind))?.entries;
    const entries = this.otherKinds.get(kind) ?? read().catch(() => undefined);
    this.otherKinds.set(kind, entries);
    return entries;
  }

  /** With --changed-only, a unit whose request this target acknowledged is not sent (`entry`: peeked). */
  unit(
    unit: Unit<P>,
    entry = this.flags.changedOnly && unit.prepared.ok && unit.id !== null
      ? this.memory?.entries.peek(unit.id)
      : undefined,
  ): Unit<P> {
    if (!this.flags.changedOnly || entry === undefined || entry.disabled === true || !unit.prepared.ok)
      return this.goingAgain(unit);
    const digest = this.digestOf(unit.prepared.value);
    if (entry.digest !== digest) {
      // Sent: its digest is kept for when it is acknowledged (an unchanged unit's never is: no entry for it).
      this.digests.set(unit.prepared.value as object, digest);
      return this.goingAgain(unit, digest);
    }
    return { ...unit, unsent: this.unsentSince(entry.run) };
  }

  /** An unchanged unit's mark: one object per run it matched (a night's unchanged rows share a few). */
  protected unsentSince(run: string): NonNullable<Unit<P>['unsent']> {
    let unsent = this.unsentByRun.get(run);
    if (unsent === undefined) {
      unsent = { ...unsentVerdict(run, this.deps.resume?.record.id), since: run };
      this.unsentByRun.set(run, unsent);
    }
    return unsent;
  }

  /** The record job's hooks; the end is stored before the report sinks complete, so a failed store reaches them. */
  hooks() {
    return {
      started: this.started.bind(this),
      headSeen: () => this.head,
      headWatch: this.headWatch.bind(this),
      ending: () => this.close(),
      acknowledged: this.acknowledged.bind(this),
      unsettled: this.unsettled.bind(this),
      refused: this.refused.bind(this),
      intend: this.intend.bind(this),
      intentsDurable: this.intentsDurable.bind(this),
      syncMemory: () => (this.kind === 'collections' ? undefined : this.found),
      // The newest run of any population: a dry run without the night's --population planned against it too.
      plannedAgainst: () =>
        this.flags.dryRun === true && this.kind !== 'collections'
          ? [...(this.memory?.populations().values() ?? [])]
              .map(({ run }) => run)
              .sort()
              .at(-1)
          : undefined,
    };
  }

  /**
   * Remembers what the target acknowledged. Not an item a resume keeps as unchanged: it would claim a request this
   * target may never have had (docs/sync.md, "The sync memory"). False: it stands on an older store, sent again.
   */
  protected acknowledged(unit: Unit<P>, payload: P, outcome: Outcome, run: string, kept: Kept): boolean | void {
    const memory = this.memory;
    const id = unit.id ?? (this.kind === 'schedules' ? outcome.id : undefined);
    if (memory === undefined || id === undefined) return;
    // Kept by an attempt whose acknowledgements a restored store lost, and not in the copy: sent again (docs/runs.md).
    const { acked, digest: was } = memory.entries.get(id) ?? {};
    const undone = this.undone(acked);
    if (kept === true && undone && was === '') return false;
    const digest = this.digestOf(payload);
    // Judged unchanged by the memory, not answered so by the store: it stands while the memory, as it stands
    // against the store now, still vouches for it (a restore since, or another store, takes that back).
    if (kept && outcome.action === 'unchanged')
      return isUnchangedNote(outcome.note) && was !== digest ? false : undefined;
    if (kept && was === digest) return;
    // A retry's request (a report fed back) is of the run its row names (docs/sync.md, "Stale input").
    const row = unit.rows?.[0];
    const retried = this.fedBack ? ((row === undefined ? undefined : reportRunOf(row)) ?? '') : undefined;
    // One the store holds is the applying attempt's, or this one's where a restore undid that one's.
    const attempt = kept === true || (kept === 'held' && !undone) ? acked : this.ackTag(memory);
    // Completed in place, not spread into another object: the line's key order is entryBody's, not the entry's.
    const entry = this.keptBeside(id, payload, run, retried) as MemoryEntry;
    entry.digest = digest;
    entry.run = run;
    if (attempt) entry.acked = attempt;
    memory.record(id, entry);
  }

  /** What the memory keeps of an acknowledged request besides digest and run: a fresh object. */
  protected abstract keptBeside(
    id: string,
    payload: P,
    run: string,
    retried?: string,
  ): Omit<MemoryEntry, 'digest' | 'run'>;

  /** What the memory must believe if the answer is lost (docs/sync.md, "A request cut short"); whether written. */
  intend(unit: Unit<P>, run: string): boolean {
    const memory = this.memory;
    if (memory === undefined || unit.id === null || !unit.prepared.ok) return false;
    const entry = memory.entries.get(unit.id);
    this.entriesBefore.set(unit.prepared.value as object, entry ?? null);
    const intent = this.intentOf(unit.prepared.value, entry, run);
    if (intent === undefined) return false;
    memory.record(unit.id, intent);
    return true;
  }

  /**
   * A refused request's intent taken back (docs/sync.md, "A request cut short"). `taken`: it is on the target, so the
   * entry before stands, not tentative, else a bare mark (docs/sync.md, "Created or updated").
   */
  refused(unit: Unit<P>, taken = false, _unsent = false): void {
    const memory = this.memory;
    if (memory === undefined || unit.id === null || !unit.prepared.ok) return;
    const before = this.entriesBefore.get(unit.prepared.value as object);
    if (before === undefined) return;
    if (taken) {
      const { tentative: _tentative, ...known } = before ?? { digest: '', run: this.run ?? '' };
      memory.record(unit.id, known);
    } else if (before === null || before.tentative === true) memory.forget(unit.id, this.run ?? '');
    else memory.record(unit.id, before);
  }

  /** A remote answer's action, from the memory as it was before (docs/sync.md, "Created or updated"). */
  answered(payload: P, id: string | null, outcome: Outcome): Outcome {
    if (outcome.status === 'failed' || outcome.action !== undefined || this.flags.dryRun === true) return outcome;
    const before = this.entriesBefore.get(payload as object);
    // No intent (no journal): the memory is as it was. Acknowledged to an earlier attempt (a resume): not known.
    const action =
      before?.run === this.run
        ? undefined
        : before !== undefined
          ? rememberedAction(before ?? undefined, this.heldAny)
          : id === null
            ? undefined
            : rememberedAction(this.memory?.entries.get(id), this.heldAny);
    // A plain answer (most) built field by field: a spread of it cost a clone per request.
    const plain = outcome.note === undefined && outcome.id === undefined && outcome.changedFields === undefined;
    return plain
      ? { status: outcome.status, errors: outcome.errors, action: action ?? 'sent' }
      : { ...outcome, action: action ?? 'sent' };
  }

  /** A unit the file did not change, sent again because the store lost it (docs/sync.md, "Where the store stands"). */
  protected goingAgain(unit: Unit<P>, digest?: string): Unit<P> {
    const gone = unit.id === null ? undefined : this.goneAgain.get(unit.id);
    if (gone === undefined || !unit.prepared.ok || gone.digest !== (digest ?? this.digestOf(unit.prepared.value)))
      return unit;
    return { ...unit, goesAgain: `sent again: run ${gone.run} acknowledged it, and ${this.againWhy}` };
  }

  /** Sent again because the store lost the very request that created it (its first acknowledged): not held now. */
  protected lostCreation(id: string): boolean {
    const gone = this.goneAgain.get(id);
    return gone !== undefined && gone.joined === gone.run && this.undone(gone.acked);
  }

  /** What `intend` wrote made durable, and written ahead to a state service: its requests may go. */
  async intentsDurable(): Promise<void> {
    await this.memory?.durable();
    if (this.run !== undefined) await this.placed?.writeAhead(this.run);
  }

  /** An unanswered request's entry: the remembered one, digests cleared, unless this request was acknowledged. */
  protected intentOf(payload: P, entry: MemoryEntry | undefined, _run: string): MemoryEntry | undefined {
    if (entry === undefined || entry.digest === '' || entry.digest === this.keptDigestOf(payload)) return undefined;
    return distrusted(entry);
  }

  /** A request that may have changed the target without an ok: its entry loses its digests, so it goes again. */
  unsettled(unit: Unit<P>): void {
    if (unit.id !== null) this.distrust(unit.id);
  }

  /** The id's entry loses its digests (`unsettled`; a store older than its memory): sent next time. */
  private distrust(id: string, entry = this.memory?.entries.get(id)): void {
    if (entry !== undefined && entry.digest !== '') this.memory!.record(id, distrusted(entry));
  }

  /** `run`, closing the memory when it fails: its error is thrown; a failing close too is said, not lost. */
  async closingOnFailure<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      await this.close().catch((closing: unknown) => void say(this.deps, `examctl: ${messageOf(closing)}`));
      throw error;
    }
  }

  /** Ends the memory: the run's end recorded, the file closed (a state service's copy stored and unlocked). */
  async close(): Promise<void> {
    // Its end marked (also where `ending` was not reached: a stop, a signal); a failed write is the close's to say.
    await this.ending().catch(() => undefined);
    const placed = this.placed;
    const known = this.known;
    this.memory = undefined;
    this.placed = undefined;
    this.known = undefined;
    await known?.close();
    await placed?.close();
  }

  /** A row of an older run whose id a later run left with another request: docs/sync.md, "Stale input". */
  protected laterRequest(row: SourceRow | undefined, id: string, given: P): Problem | undefined {
    const run = this.runOfRow(row);
    const entry = run === undefined ? undefined : this.memory?.entries.peek(id);
    if (entry === undefined || entry.digest === this.keptDigestOf(given)) return undefined;
    this.populations ??= this.memory!.populations();
    const population = this.memory!.entries.get(id)?.population;
    const judged = entry.run > run! ? '' : (this.populations.get(populationKey(population))?.files?.at(-1)?.[0] ?? '');
    const later = entry.run > judged ? entry.run : judged;
    // The run resumed now put its own intents on record: it is not later than its own rows.
    if (later <= run! || later === this.deps.resume?.record.id) return undefined;
    const resume = this.deps.resume !== undefined;
    const meant = resume
      ? "send it from this run's report with --only-failed --allow-old-file"
      : 'run again with --allow-old-file';
    const its = population === undefined ? 'without --population' : `with --population ${population}`;
    // Only the population differs, or the later run's request may have failed (the memory cannot tell).
    const what =
      this.digestIn(population, given) === entry.digest
        ? `left this user with this very request ${its}: only the population differs. ` +
          `${resume ? "Send this run's report (--only-failed)" : 'Run the retry'} ${its}, as that run did`
        : `left this ${this.kind === 'users' ? 'user' : 'schedule'} with another request; sent now, this older row would undo it. ` +
          `If run ${later} failed this row too, retry its report instead (the newest); ` +
          "else send today's file";
    // A dry run's report names the run it was planned against (docs/cli.md, "Run report").
    const of =
      row !== undefined && isDryRunStatus(row.cells[statusColumnOf(row.header)])
        ? "a dry run's report, planned against run"
        : 'run';
    return {
      field: this.kind === 'users' ? 'ExternalId' : 'ScheduleExtId',
      code: ErrorCode.StaleRow,
      message:
        `not sent: this row is of ${of} ${run}, and a later run, ${later}, ${what}, ` +
        `or if this row is meant, or run ${later} is a synced adopt (it sent nothing: this row undoes nothing), ${meant} (docs/sync.md, "Stale input")`,
    };
  }

  /** The run a row is of (its `run` cell, or the resumed run); undefined with --allow-old-file. */
  protected runOfRow(row: SourceRow | undefined): string | undefined {
    if (this.flags.allowOldFile === true) return undefined;
    return (row === undefined ? undefined : reportRunOf(row)) ?? this.deps.resume?.record.id;
  }

  /** The request as a run of `population` digests it: a user's digest has its population. */
  protected digestIn(_population: string | undefined, given: P): string {
    return this.keptDigestOf(given);
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

  /** The digest, kept until acknowledged (not a joiner's: a first import would hold one per user). */
  protected keptDigestOf(payload: P): string {
    let digest = this.digests.get(payload as object);
    if (digest === undefined) {
      digest = this.digestOf(payload);
      this.digests.set(payload as object, digest);
    }
    return digest;
  }
}

/** An entry with its digests cleared: its row goes again. */
export function distrusted({ raw: _raw, ...rest }: MemoryEntry): MemoryEntry {
  return { ...rest, digest: '' };
}

/** Per candidate id, the newest run of a schedule registering it (a damaged line: done without). */
export function registrations(schedules: MemoryEntries | undefined): Map<string, string> {
  const runs = new Map<string, string>();
  try {
    for (const { run, candidates } of schedules?.values() ?? []) {
      for (const id of candidates ?? []) if (!(runs.get(id)! >= run)) runs.set(id, run);
    }
  } catch {
    // A damaged line: done without.
  }
  return runs;
}
