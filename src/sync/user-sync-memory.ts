import { open } from 'node:fs/promises';
import { quotedValue, type Problem } from '../domain/problem.js';
import { UsageError, InternalError } from '../system/errors.js';
import type { UserRequest } from '../domain/types.js';
import { counted, formatCount } from '../formats/number-format.js';
import type { IntegrationApi } from '../port/integration-api.js';
import { localDirectoryOf, type LocalDirectory } from '../port/local-directory.js';
import { describeTarget, populationWords, type SummaryNote } from '../report/report-writers.js';
import { RunJournalError } from '../runs/run-errors.js';
import { say } from '../formats/terminal-text.js';
import { isPopulationName, populationKey, requestDigest, type MemoryEntry } from './memory-lines.js';
import type { SyncMemory } from './sync-memory.js';
import type { CommandDeps } from '../context/command-deps.js';
import { unitAction, type Kept, type Outcome, type Unit } from '../pipeline/record-job.js';
import { actionWords, itemAction, type ActionCounts, type PlanAction } from '../report/plan-actions.js';
import type { TargetOf } from '../context/resolved-target.js';
import { NOT_SENT_NOTE, registrations, SentMemory, type SyncFlags } from './sent-memory.js';
import { notCountOrPercent, parseCountOrPercent } from '../flags/flag-values.js';
import { ErrorCode } from '../domain/codes.js';
import { coerceCell } from '../domain/coercion.js';
import type { InputRecord } from '../input/record.js';
import { recordBatches, type BatchedRecords } from '../input/batches.js';
import { linksAfter, linksStoreHolds, prunableLinks, prunedAfter, pruneOf, removalsOf } from './memberships.js';
import { inputPathOf, sourceRowsOf } from '../pipeline/command-input.js';
import { idOf } from '../domain/record-id.js';
import { rawDigest, rulesFingerprint } from './raw-digest.js';
import { IdsOfOneInput, USER_ID_RULE, withProblem } from '../domain/one-id-per-file.js';
import type { LostZerosRule } from './lost-zeros.js';
import { joinedOf, StaleInput } from './stale-input.js';
import type { SourceRow } from '../report/run-report.js';
import { byKey } from '../domain/key-order.js';
import { anyOf } from './store-standing.js';
import { DISABLE_LOGIN, MEMBERSHIPS, sentBefore, sentFields, storedBefore, userChanges } from './user-changes.js';

export interface UserSyncFlags extends SyncFlags {
  disableMissing?: boolean;
  maxDisable?: string;
  pruneMemberships?: boolean;
  maxPrune?: string;
  allowDisableRecent?: boolean;
  /** The --file given: its bytes are hashed and recorded with the run. */
  file?: string;
}

/** --population's value, checked (exit 2 naming the rule). */
export function populationOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isPopulationName(value)) {
    throw new UsageError(
      `--population must be a name of 1 to 64 letters, digits, ".", "-" or "_" starting with a letter or digit (e.g. staff), got ${quotedValue(value)}`,
    );
  }
  return value;
}

/** A leaver, and why a resume leaves it alone (with its recorded source file). */
type Leaver = [id: string, entry: MemoryEntry | undefined, withdrawn?: { why: string; file: string }];

/** Units in one batch of leavers: the size of a batch read from a file, give or take. */
const LEAVER_BATCH = 1024;

/** The most users --max-disable or --max-prune lets a run touch (docs/sync.md, "Leavers"): the default scales. */
export function thresholdOf(flag: string, value: string | undefined, remembered: number) {
  if (value === undefined) {
    return {
      limit: Math.max(Math.ceil(remembered / 10), Math.min(100, Math.ceil(remembered / 4))),
      why: 'the default: 10 % of them, or up to 100 but never more than 25 % of them',
    };
  }
  const text = value.trim();
  const parsed = parseCountOrPercent(text);
  if (parsed !== undefined && 'count' in parsed) return { limit: parsed.count, why: `${flag} ${text}` };
  if (parsed !== undefined)
    return {
      limit: Math.max(0, Math.ceil((parsed.percent * remembered) / 100 - 1e-9)),
      why: `${flag} ${text} of them`,
    };
  throw new UsageError(notCountOrPercent(flag, value));
}

/** Refuses (exit 2, nothing sent) a run that would touch more of the `remembered` users than `flag` lets it. */
function refuseOver(
  flag: string,
  value: string | undefined,
  touched: number,
  remembered: number,
  what: string,
  target: string,
  check: string,
): void {
  const { limit, why } = thresholdOf(flag, value, remembered);
  if (touched <= limit) return;
  throw new UsageError(
    `${what} ${formatCount(touched)} of the ${formatCount(remembered)} users examctl synced to ${target}, more than ${formatCount(limit)} (${why}); nothing was sent. ` +
      `${check}; only if it is, raise ${flag} (docs/sync.md).`,
    { code: 'E2503' },
  );
}

/** `user sync`'s words in the summary: unchanged, leavers disabled (--disable-missing), movers (docs/sync.md). */
export const USER_SYNC_NOTES: readonly SummaryNote[] = [
  NOT_SENT_NOTE,
  { counts: (item) => item.action === 'disabled', words: () => 'disabled (not in the file)' },
  {
    counts: (item) => itemAction(item) === 'prune',
    words: (count, dryRun) =>
      `${count === 1 ? 'mover' : 'movers'} (${dryRun ? 'would lose' : 'lost'} a link or flag examctl sent)`,
    inDryRun: true,
  },
];

/** The sync memory's part in `user sync` (docs/sync.md). */
export class UserSyncMemory extends SentMemory<UserRequest> {
  declare protected readonly flags: UserSyncFlags;
  private readonly disables = new WeakSet<UserRequest>();
  /** Leavers answered 240: not on the target. */
  private readonly neverCreated = new WeakSet<UserRequest>();
  /** A request examctl added to (a leaver back, prunes): the request as the file gives it. */
  private readonly asTheFileGives = new WeakMap<UserRequest, UserRequest>();
  /** The links examctl added a DELETE for (--prune-memberships): a 131 or 1134 for one of them is done. */
  private readonly pruned = new WeakMap<UserRequest, ReadonlySet<string>>();
  private leavers: Leaver[] = [];
  /** Recorded leavers a resume leaves alone: a kept outcome of theirs is not remembered. */
  private readonly withdrawn = new WeakSet<UserRequest>();
  private told = false;
  /** With --changed-only where the store cannot say what it changed: `registrations`. */
  private registered = new Map<string, string>();
  /** Rows of the file whose ids are one once leading zeros are removed (lost-zeros.ts): they fail. */
  private lostZeros: LostZerosRule | undefined;
  /** Whether a table input has a Hierarchies column; undefined for JSON (said per record). */
  private hierarchiesColumn: boolean | undefined;
  /** A table input's header, as the report writes a leaver's row under it (see `leaverRows`). */
  private table: LeaverTable | undefined;
  /** The rules' fingerprint for raw digests (raw-digest.ts): undefined for a dry run, or when they cannot be read. */
  private fingerprint: string | undefined;
  /** The raw digest of the table row each file request was built from, remembered with it once acknowledged. */
  private readonly rawOf = new WeakMap<UserRequest, string>();
  /** Without --prune-memberships: who keeps what the file no longer gives (`sayKeptLinks`). */
  private readonly keptLinks = { first: [] as string[], seen: new Set<string>() };
  /** The ids of the file's records (not --only-failed's), for one id per file (record-job.ts). */
  fileIds: IdsOfOneInput | undefined;
  /** While `describePlan` judges the file: what the run itself says (kept links) is not said twice. */
  private counting = false;
  /** Where a local target's before values are read (`opened`); null: a remote target, or not open yet. */
  private beforeView: Pick<LocalDirectory, 'storedUserOf' | 'membershipsOf'> | null = null;

  constructor(
    flags: UserSyncFlags,
    deps: CommandDeps,
    target: TargetOf,
    /** The file's records, read once before the run (--disable-missing, --prune-memberships). */
    private readonly fileRecords: () => AsyncIterable<InputRecord> & Partial<BatchedRecords>,
    /** A record to its unit (coercion and validation): what a raw digest stands for. */
    private readonly build: (record: InputRecord) => Unit<UserRequest>,
  ) {
    super('users', flags, deps, target, digestedAs(flags.population));
  }

  /** This run's population's users, not disabled: what --max-disable's and --max-prune's percentages are of. */
  private rememberedHere(memory: SyncMemory): number {
    const population = this.flags.population;
    // A run that leaves users in their populations (populationOf) may touch any of them: all count.
    const any = population === undefined && this.flags.disableMissing !== true;
    let count = 0;
    for (const entry of memory.entries.values())
      if (entry.disabled !== true && (any || entry.population === population)) count += 1;
    return count;
  }

  /** Whether the run decides from the memory (--changed-only, --disable-missing, --prune-memberships). */
  private get decides(): boolean {
    const { changedOnly = false, disableMissing = false, pruneMemberships = false } = this.flags;
    return changedOnly || disableMissing || pruneMemberships;
  }

  /** The job's hooks; a run that decides from the memory has its confirmation say what it decided, per action. */
  override hooks() {
    const plan = { describePlan: (records: AsyncIterable<InputRecord>) => this.describePlan(records) };
    return { ...super.hooks(), ...(this.decides ? plan : {}) };
  }

  /** Opens the memory and checks --max-disable and --max-prune, before anything is sent. */
  async prepare(): Promise<void> {
    const { changedOnly = false, disableMissing = false, pruneMemberships = false } = this.flags;
    const memory = await this.open(this.decides, disableMissing || pruneMemberships);
    await this.closingOnFailure(async () => {
      // Judged where the file is taken as tonight's state (a plain send is rows sent as given).
      await this.refuseOldFile(this.flags.file, !this.decides || this.flags.allowOldFile === true, this.fileRecords());
      // A store that says where it stands names a user a schedule push rewrote among what it changed since
      // (sentAgain); the schedule memory's registrations stand in for that on the platform only.
      if (changedOnly && !this.storeStands) this.registered = registrations(await this.otherKind('schedules'));
      // A real run remembers raw digests (a full run too: the next night compares with them).
      if (this.flags.dryRun !== true) {
        this.fingerprint = await populationFingerprint(this.build, this.flags.population);
      }
      // Ids a spreadsheet stripped of their zeros are refused before anything is sent.
      if (disableMissing || pruneMemberships || this.flags.reallyNewIds !== true) await this.readFile(memory);
    });
  }

  /** Before values (docs/plan.md): the local store's record; a remote API has none: what examctl last sent. */
  opened(api: IntegrationApi | null): void {
    this.beforeView = localDirectoryOf(api) ?? null;
  }

  /** One read before the run: lost zeros, leavers, users who would lose a link or flag. */
  private async readFile(memory: SyncMemory): Promise<void> {
    const { disableMissing = false, pruneMemberships = false } = this.flags;
    const inFile = new Set<string>();
    const zeros = await this.zerosRule([
      { what: 'id', made: 'user', idsOf: (record) => [idOf(record.fields, 'ExternalId')] },
    ]);
    let losing = 0;
    let notStated = 0;
    let records = 0;
    let last: InputRecord | undefined;
    this.fileIds = new IdsOfOneInput(USER_ID_RULE);
    // Unless it prunes, the ids of the rows the structure pass kept, if any.
    const kept = pruneMemberships ? undefined : this.fileRecords().keptRecords?.('ExternalId');
    // In batches (one per chunk read), not a promise per record.
    for await (const batch of kept ?? recordBatches(this.fileRecords()))
      for (const record of batch) {
        const id = idOf(record.fields, 'ExternalId');
        records += 1;
        last = record;
        if (id === null) continue;
        // A U+FEFF inside an id is removed before the units are made (record-source.ts): their ids are not these.
        if (id.includes('\uFEFF')) this.fileIds = undefined;
        this.fileIds?.repeated(id, record.source);
        zeros?.add(record);
        // Ids ignoring case, as the service compares them: an id that only changed case is no leaver.
        if (disableMissing) inFile.add(id.toLowerCase());
        if (disableMissing && record.raw !== undefined) this.table ??= leaverTable(record.raw);
        if (!pruneMemberships) continue;
        const value = record.fields.Hierarchies;
        // A table's column is there even where a cell is empty: an empty cell is "no managed links".
        const given = record.raw?.names?.includes('Hierarchies') ?? value !== undefined;
        if (record.raw !== undefined) this.hierarchiesColumn ??= given;
        const links = memory.entries.get(id)?.links;
        if (links === undefined) continue;
        const read =
          record.raw === undefined || value === undefined ? value : coerceCell('Hierarchies', 'hierarchies', value, []);
        if (!given) notStated += 1;
        else if (removalsOf(links, read) > 0) losing += 1;
      }
    const file = this.flags.file;
    if (last?.raw?.dialect !== undefined && file !== undefined)
      await this.unended(inputPathOf(file, this.deps), last.source);
    zeros?.settle(describeTarget(memory.target));
    if (zeros?.hasPairs === true) this.lostZeros = zeros;
    if (pruneMemberships) await this.checkPrune(memory, losing, notStated);
    if (disableMissing) await this.findLeavers(memory, inFile, records);
  }

  /** A CSV's last row without a line end (an export cut mid-row?): said, not refused (docs/sync.md, "Leavers"). */
  private async unended(path: string, { file, line }: InputRecord['source']): Promise<void> {
    const handle = await open(path, 'r').catch(() => undefined);
    if (handle === undefined) return;
    const at = (await handle.stat()).size - 2;
    const { buffer } = await handle.read(Buffer.alloc(2), 0, 2, at).finally(() => handle.close());
    if (/[\r\n]\0?$/.test(buffer.toString('latin1'))) return;
    const words = 'the last row has no line end (the others have one): an export cut short?';
    await say(this.deps, `warning: ${file}:${line}: ${words}`);
  }

  /** --max-prune, and a word when the input does not state memberships (nothing of them pruned). */
  private async checkPrune(memory: SyncMemory, losing: number, notStated: number): Promise<void> {
    if (this.hierarchiesColumn === false) {
      await say(
        this.deps,
        '--prune-memberships: the file has no Hierarchies column, so no membership or permission is pruned',
      );
    } else if (notStated > 0) {
      await say(
        this.deps,
        `--prune-memberships: ${counted(notStated, 'record gives', 'records give')} no Hierarchies, so ${notStated === 1 ? 'its' : 'their'} memberships are left as they are`,
      );
    }
    if (
      memory.entries.size > 0 &&
      this.hierarchiesColumn !== false &&
      !anyOf(memory.entries.values(), (entry) => entry.links !== undefined)
    ) {
      // An earlier examctl's memory holds no links: a full run records them.
      await say(
        this.deps,
        `--prune-memberships: the sync memory of ${describeTarget(memory.target)} records no hierarchy links yet, so nothing is pruned; a full sync (without --changed-only) records them`,
      );
    }
    const what = '--prune-memberships would remove links or flags of';
    refuseOver(
      '--max-prune',
      this.flags.maxPrune,
      losing,
      this.rememberedHere(memory),
      what,
      describeTarget(memory.target),
      'Is this the right file, with its Hierarchies? Check it first',
    );
  }

  private async findLeavers(memory: SyncMemory, inFile: ReadonlySet<string>, records: number): Promise<void> {
    const population = this.flags.population;
    // A resume takes the same leavers again: those this very run disabled count as not yet disabled.
    const thisRun = this.deps.resume?.record.id;
    // One pass: this population's leavers, its remembered users (--max-disable's base), others' missing users.
    const leavers: [string, MemoryEntry][] = [];
    let remembered = 0;
    let elsewhere = 0;
    const stale = new StaleInput(memory.populations().get(populationKey(population))?.files);
    for (const [id, entry] of memory.entries) {
      const missing = !inFile.has(id.toLowerCase());
      if (entry.population !== population) {
        if (missing && entry.disabled !== true) elsewhere += 1;
        continue;
      }
      if (entry.disabled !== true) remembered += 1;
      stale.see(entry, missing);
      // A disable whose answer was lost (digest cleared: docs/sync.md, "A request cut short") goes again.
      if (missing && (entry.disabled !== true || entry.digest === '' || entry.run === thisRun)) {
        leavers.push([id, entry]);
        if (entry.disabled === true) remembered += 1;
      }
    }
    this.leavers = leavers.sort(byKey);
    // Said where it may not be what the admin meant: a run without --population beside runs with one, or a
    // population's first night. Two populations' nights, each the other's missing users, say nothing.
    if (population !== undefined && remembered > 0) elsewhere = 0;
    if (elsewhere > 0) {
      await say(
        this.deps,
        `--disable-missing: ${counted(elsewhere, 'user')} missing from the file ${elsewhere === 1 ? 'was' : 'were'} last synced ${population === undefined ? 'with a --population' : 'with another --population or without one'}, so ${elsewhere === 1 ? 'is' : 'are'} not disabled by this run, which disables only users ${population === undefined ? 'synced without --population' : `of --population ${population}`} (docs/sync.md, "Two exports, two populations")`,
      );
    }
    const target = `${describeTarget(memory.target)}${population === undefined ? '' : ` as --population ${population}`}`;
    refuseOver(
      '--max-disable',
      this.flags.maxDisable,
      this.leavers.length,
      remembered,
      '--disable-missing would disable',
      target,
      'Is the file the whole population? Check the export first',
    );
    // A resume's leavers were judged when its run started (and a later run's by stale-resume.ts).
    stale.refuse(leavers, this.flags.allowDisableRecent === true || thisRun !== undefined, population);
    if (thisRun !== undefined) await this.keepRecordedLeavers(memory, thisRun, records, new Map(leavers));
  }

  /** A disable the stopped run never sent keeps its intent: a resume judges its leavers by what nights since sent. */
  override refused(unit: Unit<UserRequest>, taken = false, unsent = false): void {
    if (unsent && unit.prepared.ok && unit.prepared.value.DisableLogin === true) return;
    super.refused(unit, taken);
  }

  /** A resume's leavers: docs/runs.md, "runs resume" says which, and which it leaves alone. */
  private async keepRecordedLeavers(memory: SyncMemory, run: string, first: number, today: Map<string, MemoryEntry>) {
    const kept: Leaver[] = [];
    const left: string[] = [];
    const record = this.deps.resume!.record;
    for await (const item of record.items(first)) {
      const id = item.id ?? '';
      const entry = today.get(id) ?? memory.entries.get(id);
      // Acknowledged present by a later run (--over-later-runs): not this run's to disable.
      if (today.delete(id) && !(entry!.run > run && entry!.disabled !== true)) {
        kept.push([id, entry]);
        continue;
      }
      const words = populationWords(entry?.population);
      const why =
        entry === undefined
          ? 'the sync memory no longer holds it'
          : entry.population !== this.flags.population
            ? `synced by ${words} since`
            : `run ${entry.run} ${entry.disabled === true ? 'disabled' : 'synced'} it since`;
      if (item.status === 'skipped') left.push(`${id} (${why})`);
      kept.push([id, entry, { why: `not disabled by this resume: ${why}`, file: item.source.file }]);
    }
    if (record.countFrom(first + kept.length) > 0)
      throw new RunJournalError(
        `run ${run}: its journal's leaver items leave a gap after item ${first}: they cannot be resumed in place; nothing was sent`,
      );
    this.leavers = [...kept, ...today];
    if (left.length === 0) return;
    await say(
      this.deps,
      `runs resume: ${counted(left.length, 'leaver')} of run ${run} not disabled by this resume: ${left.slice(0, 3).join('; ')}`,
    );
  }

  /**
   * With --disable-missing, DisableLogin false goes to each user of a full run, to one distrusted (a store restored)
   * unless a local store has it enabled, and to one unknown that a local store has disabled (not adopted).
   */
  private enables(id: string, digest: string | undefined): boolean {
    if (this.flags.disableMissing !== true) return false;
    if (!this.flags.changedOnly) return true;
    const disabledHere = this.beforeView?.storedUserOf(id)?.DisableLogin === true;
    return digest === undefined ? disabledHere : digest === '' && (this.beforeView === null || disabledHere);
  }

  /** A unit of the file: a leaver back, --prune-memberships, --changed-only. */
  override unit(unit: Unit<UserRequest>): Unit<UserRequest> {
    // One of two rows whose ids are one once leading zeros are removed: neither is sent.
    const pair = this.lostZeros?.problemAt(unit.source.line, unit.id);
    if (pair !== undefined) return { ...unit, prepared: withProblem(unit.prepared, pair) };
    // Judged unchanged by its raw digest already (`recordUnit`).
    if (unit.unsent !== undefined) return unit;
    if (!unit.prepared.ok || unit.id === null) return super.unit(unit);
    // Only --prune-memberships needs the entry's links: otherwise what --changed-only compares, unparsed.
    const full = this.flags.pruneMemberships ? this.memory?.entries.get(unit.id) : undefined;
    const entry = full ?? this.memory?.entries.peek(unit.id);
    const given = unit.prepared.value;
    const later = this.laterRequest(unit.rows?.[0], unit.id, given) ?? this.otherPopulation(unit.rows?.[0]);
    if (later !== undefined) return { ...unit, prepared: withProblem(unit.prepared, later) };
    if (
      !this.counting &&
      !this.flags.pruneMemberships &&
      entry !== undefined &&
      entry.disabled !== true &&
      (given.Hierarchies !== undefined || this.hierarchiesColumn === true)
    ) {
      this.noteKeptLinks(unit.id, given);
    }
    let value = given;
    // A disabled user back, or a full --disable-missing run (docs/sync.md, "Drift"): remembered as the file gives it.
    if (value.DisableLogin === undefined && (entry?.disabled === true || this.enables(unit.id, entry?.digest)))
      value = { ...value, DisableLogin: false };
    // A local store says which of them it holds: only those are deleted (a restore may have gone back past a prune).
    const managed =
      this.beforeView === null
        ? prunableLinks(full)
        : linksStoreHolds(prunableLinks(full), this.beforeView.membershipsOf(unit.id));
    const prune = this.flags.pruneMemberships
      ? pruneOf(managed, value, this.hierarchiesColumn ?? value.Hierarchies !== undefined)
      : undefined;
    if (prune?.added === true) {
      value = prune.request;
      this.pruned.set(value, new Set(prune.deleted));
    }
    let next = unit;
    if (value !== given) {
      this.asTheFileGives.set(value, given);
      // A plan from the memory says it (docs/sync.md, "The plan"): the send enables a login examctl disabled.
      next = {
        ...unit,
        prepared: { ok: true, value },
        ...(entry?.disabled === true && given.DisableLogin === undefined ? { plannedNote: 're-enables' } : {}),
      };
    }
    if (prune !== undefined)
      next = {
        ...next,
        membership: {
          removed: prune.removed,
          ...(prune.joined.length > 0 ? { joined: prune.joined } : {}),
          moved: MEMBERSHIPS,
        },
      };
    const judged =
      value !== given ? this.goingAgain(next) : super.unit(next, this.flags.changedOnly ? entry : undefined);
    const sent = judged.unsent === undefined || this.holds(unit.id, judged.unsent.since) ? judged : next;
    return sent.unsent === undefined ? this.withChanges(sent, unit.id) : sent;
  }

  /** A unit sent, with each field it changes (docs/plan.md); a user whose creation the store lost has none. */
  private withChanges(unit: Unit<UserRequest>, id: string): Unit<UserRequest> {
    if (!unit.prepared.ok) return unit;
    const before =
      this.beforeView !== null
        ? storedBefore(this.beforeView.storedUserOf(id), this.beforeView.membershipsOf(id))
        : this.lostCreation(id)
          ? undefined
          : sentBefore(this.memory?.entries.get(id));
    const changes = userChanges(before, unit.prepared.value);
    return changes === undefined ? unit : { ...unit, changes };
  }

  /** A report's row of another --population's run (docs/ci.md, "Fixing a failed send"). */
  private otherPopulation(row: SourceRow | undefined): Problem | undefined {
    const run = row === undefined || this.deps.resume !== undefined ? undefined : this.runOfRow(row);
    this.populations ??= this.memory?.populations();
    const of =
      run === undefined
        ? undefined
        : [...(this.populations ?? [])].find(
            ([, held]) => held.run === run || held.files?.some(([id]) => id === run),
          )?.[0];
    if (of === undefined || of === populationKey(this.flags.population)) return undefined;
    const flag = of === '' ? 'without --population' : `with --population ${of}`;
    return {
      field: 'ExternalId',
      code: ErrorCode.RowOfAnotherPopulation,
      message: `not sent: this row is of run ${run}, which ran ${flag}: retry its report ${flag}, as that run did (docs/ci.md, "Fixing a failed send")`,
    };
  }

  /** The request as a run with the user's population would digest it (`laterRequest`). */
  protected override digestIn(population: string | undefined, given: UserRequest): string {
    return requestDigest(digestedAs(population)(given));
  }

  /** A mover without --prune-memberships, once per id (a raw-unchanged row keeps its links, so never comes here). */
  private noteKeptLinks(id: string, request: UserRequest): void {
    const prune = pruneOf(this.memory?.entries.get(id)?.links, request, true);
    const kept = this.keptLinks;
    if (prune?.added !== true || kept.seen.has(id)) return;
    kept.seen.add(id);
    if (kept.first.length < 3)
      kept.first.push(
        prune.deleted.length > 0 ? `${id} still in ${prune.deleted.join(', ')}` : `${id} keeps a permission flag`,
      );
  }

  /** After a run without --prune-memberships: docs/sync.md, "Movers". */
  async sayKeptLinks(): Promise<void> {
    const { first, seen } = this.keptLinks;
    const count = seen.size;
    if (count === 0) return;
    const users = count === 1 ? '1 user keeps' : `${formatCount(count)} users keep`;
    const more = count > first.length ? `, ${formatCount(count - first.length)} more` : '';
    await say(
      this.deps,
      `${users} a hierarchy link or permission flag examctl sent that the file no longer gives (${first.join('; ')}${more}): ` +
        `requests only add memberships, so ${count === 1 ? 'it stays' : 'they stay'} on the platform; --prune-memberships removes ${count === 1 ? 'it' : 'them'} (docs/sync.md, "Movers")`,
    );
  }

  /** With --changed-only, a row whose raw digest is its entry's is not built (docs/sync.md, "The raw digest"). */
  recordUnit(record: InputRecord): Unit<UserRequest> {
    // Before the unit is built (coercion works in the record's fields), and only where an entry has one.
    const id = this.flags.changedOnly ? idOf(record.fields, 'ExternalId') : null;
    if (record.raw !== undefined) this.hierarchiesColumn ??= record.raw.names?.includes('Hierarchies');
    const state = id === null || this.memory === undefined ? 'absent' : this.memory.entries.rawState(id);
    const raw = state === 'none' ? undefined : rawDigestOfRecord(this.fingerprint, record);
    const since = raw === undefined || state !== 'raw' ? undefined : this.memory!.entries.rawMatch(id!, raw);
    if (since !== undefined && this.holds(id!, since))
      return {
        source: record.source,
        id,
        prepared: new BuiltWhenAsked(record, raw!, this),
        rows: sourceRowsOf(record),
        unsent: this.unsentSince(since),
      };
    const unit = this.build(record);
    if (raw !== undefined && unit.prepared.ok) this.rawOf.set(unit.prepared.value, raw);
    return unit;
  }

  /** Whether no schedule push sent `id` as a candidate after run `since` synced it (docs/sync.md, "Drift"). */
  private holds(id: string, since = ''): boolean {
    const pushed = since === '' ? '' : (this.registered.get(id) ?? '');
    if (pushed <= since) return true;
    if (!this.told)
      void say(
        this.deps,
        `note: schedule push run ${pushed} sent ${id} as a candidate after run ${since} synced it: sent as changed, as is any other such user`,
      );
    this.told = true;
    return false;
  }

  /** The request of a row `recordUnit` judged unchanged by its raw digest, built when asked for. */
  builtRequest(record: InputRecord, raw: string): UserRequest {
    const prepared = this.build(record).prepared;
    if (!prepared.ok)
      throw new InternalError(
        `${record.source.file}:${record.source.line}: a row judged unchanged by its raw digest does not validate: the rules fingerprint missed a change`,
      );
    this.rawOf.set(prepared.value, raw);
    return prepared.value;
  }

  /** A file unit's rows under the leavers' header (DisableLogin added, empty). */
  reportRows(unit: Unit<UserRequest>): Unit<UserRequest> {
    const table = this.table;
    if (table === undefined || this.leavers.length === 0 || unit.rows === undefined) return unit;
    const rows = underLeaverHeader(table, unit.rows);
    return rows === unit.rows ? unit : { ...unit, rows };
  }

  /** The remote confirmation's plan (docs/sync.md, "The plan"): `records` judged as the run judges them. */
  async describePlan(records: AsyncIterable<InputRecord>): Promise<string> {
    const counts: ActionCounts = {};
    const count = (action: PlanAction) => {
      counts[action] = (counts[action] ?? 0) + 1;
    };
    this.counting = true;
    try {
      // Each unit's action as its report item will say it (record-job.ts, unitAction): sent, so `ok`.
      for await (const record of records)
        count(unitAction(this.leaveOut(this.unit(this.recordUnit(record))), { status: 'ok' }, ''));
    } finally {
      this.counting = false;
    }
    for (const [, , withdrawn] of this.leavers) if (withdrawn === undefined) count('disable');
    return actionWords(counts, true);
  }

  /** How many leavers `leaverBatches` gives (known once `prepare` ran). */
  get leaverCount(): number {
    return this.leavers.length;
  }

  /** The leavers as units of their own, after the file's (--disable-missing). */
  *leaverBatches(): Iterable<readonly Unit<UserRequest>[]> {
    for (let from = 0; from < this.leavers.length; from += LEAVER_BATCH) {
      yield this.leavers.slice(from, from + LEAVER_BATCH).map(([id, entry, withdrawn]) => {
        const payload: UserRequest = {
          ExternalId: id,
          FirstName: entry?.firstName ?? '',
          LastName: entry?.lastName ?? '',
          DisableLogin: true,
        } as UserRequest;
        (withdrawn === undefined ? this.disables : this.withdrawn).add(payload);
        const unit: Unit<UserRequest> = {
          source: { file: withdrawn?.file ?? `<synced by run ${entry?.run}>`, line: 0 },
          id,
          prepared: { ok: true as const, value: payload },
          plannedAction: 'disabled',
          changes: DISABLE_LOGIN,
        };
        if (withdrawn !== undefined) unit.unsent = { note: withdrawn.why, action: 'left' };
        const judged = withdrawn === undefined ? this.goingAgain(unit) : unit;
        return this.table === undefined ? judged : { ...judged, rows: [leaverRow(this.table, payload)] };
      });
    }
  }

  protected override acknowledged(
    unit: Unit<UserRequest>,
    payload: UserRequest,
    outcome: Outcome,
    run: string,
    kept: Kept,
  ): boolean | void {
    if (!this.withdrawn.has(payload)) return super.acknowledged(unit, payload, outcome, run, kept);
  }

  /** A leaver's answer says `disabled` unless nothing changed; a 131 or 1134 for a link examctl DELETEs is done. */
  outcome(payload: UserRequest, outcome: Outcome): Outcome {
    if (this.disables.has(payload) && outcome.status === 'ok')
      return outcome.action === 'unchanged'
        ? { ...outcome, note: 'already disabled on the target: nothing changed' }
        : { ...outcome, action: 'disabled' };
    if (
      this.disables.has(payload) &&
      outcome.status === 'failed' &&
      outcome.errors.some((problem) => problem.code === ErrorCode.RoleEmpty)
    ) {
      // 240 (a role is required to create): not on the target, so cannot log in; remembered disabled and tentative.
      this.neverCreated.add(payload);
      return { status: 'ok', errors: [], action: 'unchanged', note: 'not on the target: nothing to disable' };
    }
    const deleted = this.pruned.get(payload);
    if (deleted === undefined || outcome.status !== 'partial') return outcome;
    const errors = outcome.errors.filter((problem) => !isGoneLink(problem, payload, deleted));
    if (errors.length > 0) this.rememberDeletesOfPartial(payload, errors);
    if (errors.length === outcome.errors.length) return outcome;
    return { ...outcome, errors, status: errors.length === 0 ? 'ok' : 'partial' };
  }

  /** A partial mover (its DELETEs went through): docs/sync.md, "A link that is already gone". */
  private rememberDeletesOfPartial(payload: UserRequest, errors: readonly Problem[]): void {
    const entry = this.memory?.entries.get(payload.ExternalId);
    if (entry === undefined || payload.Hierarchies === undefined) return;
    const failed = new Set(errors.map(linkIndexOf));
    const done = payload.Hierarchies.filter((link, index) => link.Action === 'DELETE' && !failed.has(index));
    if (done.length === 0) return;
    const links = linksAfter(entry.links, done);
    // Its raw digest goes with the request digest it stood for: neither holds now.
    const { links: _before, raw: _raw, ...rest } = entry;
    this.memory!.record(payload.ExternalId, { ...rest, digest: '', ...(links === undefined ? {} : { links }) });
  }

  /** The entry a user's request leaves unanswered: docs/sync.md, "A request cut short", lists it. */
  protected override intentOf(payload: UserRequest, entry: MemoryEntry | undefined, run: string) {
    const given = this.asTheFileGives.get(payload) ?? payload;
    const leaver = this.disables.has(payload);
    // A full run's DisableLogin false for a user the memory has enabled already changes nothing it knows.
    const asKnown =
      payload === given ||
      (entry?.disabled !== true &&
        given.DisableLogin === undefined &&
        payload.DisableLogin === false &&
        !this.pruned.has(payload));
    if (entry !== undefined && !leaver && asKnown && entry.digest !== '' && entry.digest === this.keptDigestOf(given))
      return undefined;
    const links = linksAfter(entry?.links, payload.Hierarchies, true);
    const firstName = payload.FirstName ?? entry?.firstName;
    const lastName = payload.LastName ?? entry?.lastName;
    const intent: MemoryEntry = { digest: '', run: entry?.run ?? run };
    if (firstName !== undefined) intent.firstName = firstName;
    if (lastName !== undefined) intent.lastName = lastName;
    // What was acknowledged before stays until this request is: a cut-short request's values are not known sent.
    if (entry?.sent !== undefined) intent.sent = entry.sent;
    if (leaver || entry?.disabled === true) intent.disabled = true;
    if (links !== undefined) intent.links = links;
    if (entry?.pruned !== undefined) intent.pruned = entry.pruned;
    if (entry === undefined || entry.tentative === true) intent.tentative = true;
    else Object.assign(intent, joinedOf(entry, run));
    // Sent by this population: missing from its next file, this population disables it.
    Object.assign(intent, this.populationOf(entry));
    return entry !== undefined && sameEntry(entry, intent) ? undefined : intent;
  }

  /** Remembered as the file gives it: the next night the same row is unchanged. */
  protected override digestOf(payload: UserRequest): string {
    return super.digestOf(this.asTheFileGives.get(payload) ?? payload);
  }

  /** Users: also the names a disable needs, the leaver's mark, the links examctl manages. */
  protected override keptBeside(id: string, payload: UserRequest, run: string, retried?: string) {
    const entry = this.memory?.entries.get(id);
    const given = this.asTheFileGives.get(payload) ?? payload;
    const kept = acknowledgedUser(
      payload,
      given,
      linksAfter(entry?.links, payload.Hierarchies),
      this.rawOf.get(given),
      this.disables.has(payload),
      this.populationOf(entry).population,
      entry,
    );
    // Answered 240: never created, so tentative, joined by no run.
    return Object.assign(kept, this.neverCreated.has(payload) ? { tentative: true } : joinedOf(entry, run, retried));
  }

  /** A sent user's population (docs/sync.md, "Two exports, two populations"): a one-off fix leaves it as it was. */
  private populationOf(entry: MemoryEntry | undefined): { population?: string } {
    const own = this.flags.population;
    if (own === undefined && this.flags.disableMissing !== true && entry?.population !== undefined)
      return { population: entry.population };
    return own === undefined ? {} : { population: own };
  }
}

/** Of the request and its population: a user of another population is never unchanged here. */
export function digestedAs(population: string | undefined): (user: UserRequest) => unknown {
  return population === undefined ? (user) => user : (user) => ({ population, request: user });
}

/** A population's raw digests are its own, like its request digests. */
export async function populationFingerprint(
  build: (record: InputRecord) => Unit<UserRequest>,
  population: string | undefined,
): Promise<string | undefined> {
  const fingerprint = await rulesFingerprint(build);
  return fingerprint === undefined || population === undefined
    ? fingerprint
    : `${fingerprint}population ${population}\n`;
}

/**
 * What the memory keeps of an acknowledged user besides digest and run; the raw digest only where
 * --prune-memberships would add nothing against `links`; what `links` lost since `before` joins its pruned.
 */
export function acknowledgedUser(
  sent: UserRequest,
  given: UserRequest,
  links: MemoryEntry['links'],
  raw: string | undefined,
  disabled: boolean,
  population: string | undefined,
  before?: MemoryEntry,
): Omit<MemoryEntry, 'digest' | 'run'> {
  const more: Omit<MemoryEntry, 'digest' | 'run'> = {};
  if (raw !== undefined && removalsOf(links, given.Hierarchies ?? []) === 0) more.raw = raw;
  if (sent.FirstName !== undefined) more.firstName = sent.FirstName;
  if (sent.LastName !== undefined) more.lastName = sent.LastName;
  if (sent.Email !== undefined) more.email = sent.Email;
  const fields = sentFields(sent, before?.sent);
  if (fields !== undefined) more.sent = fields;
  if (disabled) more.disabled = true;
  if (links !== undefined) more.links = links;
  const pruned = before && prunedAfter(before.links, links, before.pruned);
  if (pruned) more.pruned = pruned;
  if (population !== undefined) more.population = population;
  return more;
}

/** A table row's raw digest (recordUnit): none with the reader's findings, or for JSON. */
export function rawDigestOfRecord(fingerprint: string | undefined, record: InputRecord): string | undefined {
  if (
    fingerprint === undefined ||
    record.raw === undefined ||
    record.problems !== undefined ||
    record.warnings !== undefined
  )
    return undefined;
  return rawDigest(fingerprint, record.fields);
}

/** A raw-unchanged row's request, built only if asked: one object per row, no closure. */
class BuiltWhenAsked {
  readonly ok = true;
  private built: UserRequest | undefined;

  constructor(
    private readonly record: InputRecord,
    private readonly raw: string,
    private readonly memory: Pick<UserSyncMemory, 'builtRequest'>,
  ) {}

  get value(): UserRequest {
    return (this.built ??= this.memory.builtRequest(this.record, this.raw));
  }
}

/** How a leaver's row sits in a table input's report (docs/sync.md, "Leavers"). */
type LeaverTable = ReturnType<typeof leaverTable>;

const LEAVER_FIELDS = ['ExternalId', 'FirstName', 'LastName', 'DisableLogin'] as const;
type LeaverField = (typeof LEAVER_FIELDS)[number];

/** A file's rows under the report's header when it adds DisableLogin (`runs show` too: run-show-leavers.ts). */
export function underLeaverHeader<R extends readonly SourceRow[]>(table: LeaverTable, rows: R): R | SourceRow[] {
  if (table.header === table.source) return rows;
  // The added cell is past the row's own, read as empty (reportRowCells): copied only for a ragged tail.
  const { source } = table;
  return rows.map((row) =>
    row.header.length === source.length && row.header.every((name, i) => name === source[i])
      ? {
          ...row,
          header: table.header,
          cells: row.cells.length > source.length ? row.cells.slice(0, source.length) : row.cells,
        }
      : row,
  );
}

export function leaverTable(raw: NonNullable<InputRecord['raw']>) {
  const nameOf = (i: number): string | undefined => raw.names?.[i] ?? raw.header[i];
  const find = (field: LeaverField): number => raw.header.findIndex((_, i) => nameOf(i) === field);
  const disableLogin = find('DisableLogin');
  const header = disableLogin >= 0 ? raw.header : [...raw.header, 'DisableLogin'];
  return {
    /** The input's own header (the file's rows carry an equal array: each read of the file its own). */
    source: raw.header,
    /** The report's header: `source`, or `source` and DisableLogin. */
    header,
    ...(raw.dialect === undefined ? {} : { dialect: raw.dialect }),
    columns: {
      ExternalId: find('ExternalId'),
      FirstName: find('FirstName'),
      LastName: find('LastName'),
      DisableLogin: disableLogin >= 0 ? disableLogin : raw.header.length,
    },
  };
}

/** A leaver's request as a row of the report: fed back (--only-failed), it sends the disable again. */
export function leaverRow(
  table: LeaverTable,
  payload: Pick<UserRequest, 'ExternalId'> & Partial<Pick<UserRequest, 'FirstName' | 'LastName'>>,
): SourceRow {
  const cells: string[] = table.header.map(() => '');
  for (const field of LEAVER_FIELDS)
    if (table.columns[field] >= 0)
      cells[table.columns[field]] = field === 'DisableLogin' ? 'true' : (payload[field] ?? '');
  return { line: 0, header: table.header, cells, ...(table.dialect === undefined ? {} : { dialect: table.dialect }) };
}

/** Whether two entries say the same (an intent that would change nothing is not written). */
function sameEntry(a: MemoryEntry, b: MemoryEntry): boolean {
  return (
    a.digest === b.digest &&
    a.raw === b.raw &&
    a.firstName === b.firstName &&
    a.lastName === b.lastName &&
    (a.disabled === true) === (b.disabled === true) &&
    (a.tentative === true) === (b.tentative === true) &&
    a.population === b.population &&
    JSON.stringify(a.links ?? []) === JSON.stringify(b.links ?? [])
  );
}

/** The index of the link a GroupErrors problem is of (`Hierarchies[2]`); undefined: not a link's. */
function linkIndexOf(problem: Problem): number | undefined {
  const index = /^Hierarchies\[(\d+)\]$/.exec(problem.field)?.[1];
  return index === undefined ? undefined : Number(index);
}

/** A GroupErrors problem saying a link examctl asked to DELETE no longer exists (131) or is inactive (1134). */
function isGoneLink(problem: Problem, payload: UserRequest, deleted: ReadonlySet<string>): boolean {
  if (problem.code !== ErrorCode.HierarchyNotFound && problem.code !== ErrorCode.HierarchyInactive) return false;
  const index = linkIndexOf(problem);
  const entry = index === undefined ? undefined : payload.Hierarchies?.[index];
  return entry !== undefined && entry.Action === 'DELETE' && deleted.has(entry.ExternalId);
}
