import { ErrorCode } from '../domain/codes.js';
import type { PreparedSchedule } from '../domain/sittings.js';
import { idOf } from '../domain/record-id.js';
import { isScheduleRequestRecord, type InputRecord } from '../input/record.js';
import { describeTarget, type SummaryNote } from '../report/report-writers.js';
import { namedFirst } from '../formats/number-format.js';
import { terminalLine } from '../formats/terminal-text.js';
import type { Outcome, Unit } from '../pipeline/record-job.js';
import { NOT_SENT_NOTE, SentMemory } from './sent-memory.js';
import { withProblem } from '../domain/one-id-per-file.js';
import type { MemoryEntries } from './memory-entries.js';
import type { SourceRow } from '../report/run-report.js';
import type { Problem } from '../domain/problem.js';

/** How many schedules' notes are said after the run (docs/sync.md, "Withdrawn candidates"). */
const NAMED_SCHEDULES = 3;
/** How many the note on the schedule's report item names. */
const NOTED_CANDIDATES = 20;
const LEFT = '(docs/sync.md, "Fields left out")';
const WITHDRAWN = '(docs/sync.md, "Withdrawn candidates")';
const EVERY = /^(ScheduleExtId|AssessmentExtId|Title|StartDateTime|EndDateTime|GroupExtId|GroupName)$/;

export const SCHEDULE_NOTES: SummaryNote[] = [
  NOT_SENT_NOTE,
  // Each note counted for what it says: an item holding both is on both lines.
  {
    counts: (item) => item.note?.includes(WITHDRAWN) === true,
    words: () => 'with candidates left registered',
  },
  { counts: (item) => item.note?.includes(LEFT) === true, words: () => 'with fields cleared' },
];

/** `schedule push`'s sync memory: also each schedule's candidates, to say those withdrawn (docs/sync.md). */
export class ScheduleMemory extends SentMemory<PreparedSchedule> {
  /** What each request leaves out (`withNote`); the first schedules', said after the run. */
  private readonly notes = new WeakMap<PreparedSchedule, string[]>();
  readonly said: string[] = [];

  override unit(unit: Unit<PreparedSchedule>): Unit<PreparedSchedule> {
    if (!unit.prepared.ok || unit.id === null) return super.unit(unit);
    // A row of an older run a later run left otherwise: not sent (docs/sync.md, "Stale input").
    const [row, payload] = [unit.rows?.[0], unit.prepared.value];
    const later =
      this.laterRequest(row, unit.id, payload) ?? this.laterUser(row, payload) ?? this.clears(unit.id, payload);
    if (later !== undefined) return { ...unit, prepared: withProblem(unit.prepared, later) };
    this.noteWithdrawn(unit.id, payload);
    const next = super.unit(unit);
    // Unchanged: an older examctl's entry learns the fields it set (docs/sync.md, "Fields left out").
    const entry =
      next.unsent?.since === undefined || this.flags.dryRun === true ? undefined : this.memory?.entries.get(unit.id);
    if (entry !== undefined && entry.fields === undefined)
      this.memory!.record(unit.id, { ...entry, fields: setFields(payload) });
    // A dry run that asks no target notes it as the answer will be (`withNote`): its plan says what the run says.
    const notes = this.notes.get(payload);
    return notes === undefined || next.unsent !== undefined ? next : { ...next, plannedNote: notes.join('; ') };
  }

  /** Fields the last request set that an upsert leaves out: said, the PIN refused (docs/sync.md, "Fields left out"). */
  private clears(id: string, payload: PreparedSchedule): Problem | undefined {
    const entry = payload.request.Upsert === true ? this.memory?.entries.get(id) : undefined;
    const given = setFields(payload);
    const cleared = Object.keys(entry?.fields ?? {}).filter((field) => !(field in given));
    if (!entry || !cleared.length) return undefined;
    const what = `${cleared.join(', ')} (set by run ${entry.run})`;
    if (!cleared.includes('PIN') || this.deps.invocation?.clearPin === true)
      return void this.note(id, payload, `left out: the upsert clears ${what} ${LEFT}`);
    return {
      field: 'Schedule.PIN',
      code: ErrorCode.PinWouldBeCleared,
      message: `not sent: the upsert would clear ${what}, opening the sitting: give --pin-file, or --clear-pin ${LEFT}`,
    };
  }

  /** A row of an older run whose candidate a later user sync sent otherwise (docs/sync.md, "Stale input"). */
  private laterUser(row: SourceRow | undefined, payload: PreparedSchedule): Problem | undefined {
    const run = this.runOfRow(row);
    if (run === undefined || this.users === undefined) return undefined;
    for (const [i, candidate] of payload.request.Candidates.entries()) {
      const id = candidate.CandidateExtId;
      const user = typeof id === 'string' && (this.users.peek(id)?.run ?? '') > run ? this.users.get(id) : undefined;
      const same = user !== undefined && candidate.FirstName === user.firstName && candidate.LastName === user.lastName;
      if (
        user === undefined ||
        (same && (user.email === undefined || candidate.Email?.toLowerCase() === user.email.toLowerCase()))
      )
        continue;
      const later = user.run;
      return {
        field: `Candidates[${i}].CandidateExtId`,
        code: ErrorCode.StaleRow,
        message:
          `not sent: this row is of run ${run}, and a later run, ${later}, sent candidate ${id}'s user other names or another email; ` +
          `sent now, this row's would undo it. Send today's sittings file, ` +
          `or if this row is meant, run again with --allow-old-file (docs/sync.md, "Stale input")`,
      };
    }
    return undefined;
  }

  /** The users memory, read with the leading-zeros check (`refuseLostZeros`), for `laterUser`. */
  private users: MemoryEntries | undefined;

  protected override keptBeside(_id: string, payload: PreparedSchedule): ReturnType<typeof acknowledgedSchedule> {
    return acknowledgedSchedule(payload);
  }

  /** The leading-zeros check, dry runs too: a schedule is one unit of many rows, so the run is refused. */
  async refuseLostZeros(records: AsyncIterable<InputRecord>): Promise<void> {
    const [memory, old] = [this.memory, this.oldFile];
    if (memory === undefined) return;
    this.users = await this.otherKind('users');
    const rule = await this.zerosRule([
      {
        what: 'candidate id',
        made: 'user',
        idsOf: (record) => candidatesOf(record).map((fields) => idOf(fields, 'CandidateExtId')),
        pairsRefuseRun: true,
      },
      // Schedule ids too: a schedule examctl pushed as 004512, given as 4512, would be a second schedule.
      {
        what: 'schedule id',
        made: 'schedule',
        memory: memory.entries.size === 0 ? undefined : memory.entries,
        idsOf: (record) => [scheduleIdOf(record)],
        pairsRefuseRun: true,
      },
    ]);
    if (rule === undefined && old === undefined) return;
    for await (const record of records) {
      rule?.add(record);
      if (old && (memory.entries.peek(scheduleIdOf(record) ?? '')?.run ?? '') > old.oldFileRun) throw old;
    }
    rule?.settle(describeTarget(memory.target));
  }

  /** An old night's file: refused (`refuseLostZeros`) if a later run sent its schedules. */
  private oldFile: (Error & { oldFileRun: string }) | undefined;

  override async refuseOldFile(...args: Parameters<SentMemory<PreparedSchedule>['refuseOldFile']>): Promise<void> {
    await super.refuseOldFile(...args).catch((error: Error & { oldFileRun?: string }) => {
      if (error.oldFileRun === undefined) throw error;
      this.oldFile = error as Error & { oldFileRun: string };
    });
  }

  /** The candidates registered before that this request leaves out (ids ignoring case, as the service's). */
  private noteWithdrawn(id: string, payload: PreparedSchedule): void {
    const registered = this.memory?.entries.get(id)?.candidates;
    if (registered === undefined || registered.length === 0) return;
    const given = new Set(candidateIds(payload).map((candidate) => candidate.toLowerCase()));
    const left = registered.filter((candidate) => !given.has(candidate.toLowerCase()));
    if (left.length === 0) return;
    const noted = `not in this file, still registered (an upsert never removes a candidate; withdraw on the platform any that left): ${namedFirst(left, NOTED_CANDIDATES)}`;
    this.note(id, payload, `${noted} ${WITHDRAWN}`);
  }

  private note(id: string, payload: PreparedSchedule, note: string): void {
    this.notes.set(payload, [...(this.notes.get(payload) ?? []), note]);
    const line = terminalLine(`${id}: ${note}`);
    if (this.said.length < NAMED_SCHEDULES && !this.said.includes(line)) this.said.push(line);
  }

  /** A request that left something out: its outcome noted, beside the schedule (SCHEDULE_NOTES counts them). */
  withNote(payload: PreparedSchedule, outcome: Outcome): Outcome {
    const notes = this.notes.get(payload);
    if (notes === undefined || outcome.status === 'failed' || outcome.note !== undefined) return outcome;
    return { ...outcome, note: notes.join('; ') };
  }
}

/** What the memory keeps of an acknowledged schedule besides digest and run: its candidates, the fields it set. */
export function acknowledgedSchedule(payload: PreparedSchedule) {
  return { candidates: candidateIds(payload), fields: setFields(payload) };
}

function setFields(payload: PreparedSchedule): Record<string, string> {
  const set = Object.entries(payload.request.Schedule).filter(
    ([name, value]) => !EVERY.test(name) && value !== undefined && value !== null && value !== '',
  );
  return Object.fromEntries(set.map(([name]) => [name, '']));
}

function candidateIds(payload: PreparedSchedule): string[] {
  return payload.request.Candidates.flatMap(({ CandidateExtId: id }) => (typeof id === 'string' ? [id] : []));
}

function scheduleIdOf(record: InputRecord): string | null {
  const fields = isScheduleRequestRecord(record) ? record.fields.Schedule : record.fields;
  return idOf((fields ?? {}) as Record<string, unknown>, 'ScheduleExtId');
}

/** The candidates of a record: a sittings row is one; a whole request (JSON) has its Candidates. */
function candidatesOf(record: InputRecord): readonly Record<string, unknown>[] {
  if (!isScheduleRequestRecord(record)) return [record.fields];
  const candidates = record.fields.Candidates;
  return Array.isArray(candidates)
    ? candidates.filter(
        (candidate): candidate is Record<string, unknown> => typeof candidate === 'object' && candidate !== null,
      )
    : [];
}
