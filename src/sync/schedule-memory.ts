import type { PreparedSchedule } from '../domain/index.js';
import { idOf } from '../domain/record-id.js';
import { isScheduleRequestRecord, type InputRecord } from '../input/record.js';
import { describeTarget } from '../report/report-writers.js';
import { formatCount, namedFirst } from '../formats/number-format.js';
import { terminalLine } from '../formats/terminal-text.js';
import type { Outcome, Unit } from '../pipeline/record-job.js';
import { SentMemory } from './sent-memory.js';
import { UsageError } from '../system/errors.js';
import { withProblem } from '../domain/one-id-per-file.js';
import { onlyWhichOf, type OnlyWhich } from './known-ids.js';
import type { MemoryEntries } from './memory-entries.js';
import type { SourceRow } from '../report/run-report.js';
import type { Problem } from '../domain/problem.js';
import { USER_FIELDS as USER_FIELD_LIST } from '../domain/user.js';

/** A candidate's fields that are its user's (not the sitting's): sent, they change the user. */
const USER_FIELDS: ReadonlySet<string> = new Set(USER_FIELD_LIST.filter((field) => field !== 'ExternalId'));

/** How many schedules the line after the run names (docs/sync.md, "Withdrawn candidates"). */
const NAMED_SCHEDULES = 3;
/** How many candidates it names per schedule. */
const NAMED_CANDIDATES = 3;
/** How many the note on the schedule's report item names. */
const NOTED_CANDIDATES = 20;

/** `schedule push`'s memory flags that go together (exit 2 otherwise); --only-new or --only-existing as one value. */
export function scheduleSyncFlags(flags: { changedOnly?: boolean | undefined; requireMemory?: boolean | undefined; upsert?: boolean | undefined; onlyNew?: boolean | undefined; onlyExisting?: boolean | undefined }): OnlyWhich | undefined {
  // Unchanged schedules are left out only when the rest can be sent again as updates.
  if (flags.changedOnly && !flags.upsert) throw new UsageError('--changed-only needs --upsert: a schedule that changed is sent again as an update');
  if (flags.requireMemory && !flags.changedOnly) throw new UsageError('--require-memory goes with --changed-only');
  const only = onlyWhichOf(flags.onlyNew, flags.onlyExisting);
  // A schedule the target has is sent again only as an update.
  if (only === 'existing' && !flags.upsert) throw new UsageError('--only-existing needs --upsert: a schedule the target has is sent again as an update');
  return only;
}

/**
 * `schedule push`'s sync memory: besides the digest, the candidates of the last request the target
 * acknowledged for each schedule, to say those a run withdraws (docs/sync.md, "Withdrawn candidates").
 */
export class ScheduleMemory extends SentMemory<PreparedSchedule> {
  private readonly withdrawn = { schedules: 0, candidates: 0, first: [] as string[], seen: new Set<string>() };
  /** Each request's left-out candidates, for the note on its report item. */
  private readonly leftOut = new WeakMap<PreparedSchedule, string[]>();

  override unit(unit: Unit<PreparedSchedule>): Unit<PreparedSchedule> {
    if (!unit.prepared.ok || unit.id === null) return super.unit(unit);
    // A row of an older run a later run left otherwise: not sent (docs/sync.md, "Stale input").
    const later = this.laterRequest(unit.rows?.[0], unit.id, unit.prepared.value) ?? this.laterUser(unit.rows?.[0], unit.prepared.value);
    if (later !== undefined) return { ...unit, prepared: withProblem(unit.prepared, later) };
    this.noteWithdrawn(unit.id, unit.prepared.value);
    return super.unit(unit);
  }

  /**
   * A row of an older run whose candidate a later run (a user sync) left with another request:
   * its user fields, sent now, would put back what that run changed (docs/sync.md, "Stale input").
   */
  private laterUser(row: SourceRow | undefined, payload: PreparedSchedule): Problem | undefined {
    const run = this.runOfRow(row);
    if (run === undefined || this.users === undefined) return undefined;
    for (const [i, candidate] of payload.request.Candidates.entries()) {
      const id = candidate.CandidateExtId;
      const later = typeof id === 'string' && Object.keys(candidate).some((field) => USER_FIELDS.has(field)) ? this.users.peek(id)?.run : undefined;
      if (later === undefined || later <= run) continue;
      return {
        field: `Candidates[${i}].CandidateExtId`,
        code: null,
        message:
          `not sent: this row is of run ${run}, and a later run, ${later}, sent candidate ${id}'s user another request; ` +
          `sent now, this row's user fields (names, email) would undo it. Send today's sittings file, ` +
          `or if this row is meant, run again with --allow-old-file (docs/sync.md, "Stale input")`,
      };
    }
    return undefined;
  }

  /** The users memory, read with the leading-zeros check (`refuseLostZeros`), for `laterUser`. */
  private users: MemoryEntries | undefined;

  protected override keptBeside(_id: string, payload: PreparedSchedule): { candidates: string[] } {
    return acknowledgedSchedule(payload);
  }

  /**
   * A schedule push's leading-zeros check, dry runs too (docs/input-formats.md, "Leading zeros"):
   * a schedule is one unit of many rows, so the run, not a row, is refused. Opened first.
   */
  async refuseLostZeros(records: AsyncIterable<InputRecord>): Promise<void> {
    const memory = this.memory;
    if (memory === undefined) return;
    this.users = await this.otherKind('users');
    const rule = await this.zerosRule([
      { what: 'candidate id', made: 'user', idsOf: (record) => candidatesOf(record).map((fields) => idOf(fields, 'CandidateExtId')), pairsRefuseRun: true },
      // Schedule ids too: a schedule examctl pushed as 004512, given as 4512, would be a second schedule.
      {
        what: 'schedule id',
        made: 'schedule',
        memory: memory.entries.size === 0 ? undefined : memory.entries,
        idsOf: (record) => [idOf(isScheduleRequestRecord(record) ? ((record.fields.Schedule ?? {}) as Record<string, unknown>) : record.fields, 'ScheduleExtId')],
        pairsRefuseRun: true,
      },
    ]);
    if (rule === undefined) return;
    for await (const record of records) rule.add(record);
    rule.settle(describeTarget(memory.target));
  }

  /** The candidates the memory says the last acknowledged request registered that this one leaves out (ids compare ignoring case, as the service's do). */
  private noteWithdrawn(id: string, payload: PreparedSchedule): void {
    const registered = this.memory?.entries.get(id)?.candidates;
    if (registered === undefined || registered.length === 0 || this.withdrawn.seen.has(id)) return;
    const given = new Set(candidateIds(payload).map((candidate) => candidate.toLowerCase()));
    const left = registered.filter((candidate) => !given.has(candidate.toLowerCase()));
    if (left.length === 0) return;
    this.leftOut.set(payload, left);
    const withdrawn = this.withdrawn;
    withdrawn.seen.add(id);
    withdrawn.schedules += 1;
    withdrawn.candidates += left.length;
    if (withdrawn.first.length < NAMED_SCHEDULES) {
      withdrawn.first.push(`${id}: ${namedFirst(left, NAMED_CANDIDATES)}`);
    }
  }

  /**
   * The outcome of a request that left candidates out, with a note naming them, so the JSON report,
   * the journal and `runs show` say it beside the schedule, not only stderr. A failed request
   * changed nothing: the line after the run says it.
   */
  withNote(payload: PreparedSchedule, outcome: Outcome): Outcome {
    const left = this.leftOut.get(payload);
    if (left === undefined || outcome.status === 'failed' || outcome.note !== undefined) return outcome;
    return {
      ...outcome,
      note: `not in this file, still registered (an upsert never removes a candidate): ${namedFirst(left, NOTED_CANDIDATES)} (docs/sync.md, "Withdrawn candidates")`,
    };
  }

  /**
   * After the run (docs/sync.md, "Withdrawn candidates"): the candidates a request leaves out that
   * the schedule's last acknowledged request registered. They stay registered on the platform.
   */
  withdrawnLine(): string | undefined {
    const { schedules, candidates, first } = this.withdrawn;
    if (schedules === 0) return undefined;
    const one = candidates === 1;
    const who = one ? '1 candidate examctl registered is' : `${formatCount(candidates)} candidates examctl registered are`;
    const more = schedules > first.length ? `; ${formatCount(schedules - first.length)} more schedule${schedules - first.length === 1 ? '' : 's'}` : '';
    return terminalLine(
      `${who} not in this file (${first.join('; ')}${more}): an upsert adds and updates candidates but never removes one, ` +
        `so ${one ? 'it stays' : 'they stay'} registered with ${one ? 'its' : 'their'} startup link. If the file is the whole list, withdraw ${one ? 'it' : 'them'} on the platform; ` +
        `if it only adds candidates, nothing is wrong (docs/sync.md, "Withdrawn candidates")`,
    );
  }
}

/** What the memory keeps of a schedule whose request the target acknowledged, besides its digest and run: its candidates. */
export function acknowledgedSchedule(payload: PreparedSchedule): { candidates: string[] } {
  return { candidates: candidateIds(payload) };
}

function candidateIds(payload: PreparedSchedule): string[] {
  const ids: string[] = [];
  for (const candidate of payload.request.Candidates) if (typeof candidate.CandidateExtId === 'string') ids.push(candidate.CandidateExtId);
  return ids;
}

/** The candidates of a record: a row of a sittings or candidates file is one; a whole request (JSON) has its Candidates. */
function candidatesOf(record: InputRecord): readonly Record<string, unknown>[] {
  if (!isScheduleRequestRecord(record)) return [record.fields];
  const candidates = record.fields.Candidates;
  return Array.isArray(candidates) ? candidates.filter((candidate): candidate is Record<string, unknown> => typeof candidate === 'object' && candidate !== null) : [];
}
