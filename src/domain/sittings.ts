/**
 * Schedule requests from a file (docs/cli.md, "schedule push"): sittings rows grouped by ScheduleExtId,
 * whole requests taken as written; every problem carries its line. Pure.
 */
import { ErrorCode } from './codes.js';
import { quotedValue, type Problem, type Validation } from './problem.js';
import type { WrittenTime } from './local-time.js';
import { coerceAndValidateScheduleRequest, coerceFields } from './coercion.js';
import { isPlainObject } from './field-rules.js';
import { CANDIDATE_ID_RULE, IdsOfOneInput } from './one-id-per-file.js';
import { idOf } from './record-id.js';
import { SCHEDULE_REQUEST_TABLE, validateScheduleRequest } from './schedule.js';
import { SCHEDULE_COLUMNS } from './columns.js';
import { SECRET_FIELDS } from './field-names.js';
import type { ScheduleRequest } from './types.js';

/** What flags and --schedule give: defaults for what a row or a request leaves out. */
export interface ScheduleDefaults {
  schedule: Record<string, unknown>;
  /** Times of --start, --end and --schedule as typed (`28/03/2027 09:00`), for messages that name them. */
  written?: WrittenTime[];
  workflow?: unknown;
  upsert?: unknown;
}

/** A request ready to send, with the line of each candidate for the service's `Candidates[i]` errors. */
export interface PreparedSchedule {
  request: ScheduleRequest;
  candidateLines: number[];
}

/** One candidate row of a sittings file. */
interface SittingRow {
  line: number;
  /** CSV cells are strings to coerce; JSON values are taken as typed. */
  csv: boolean;
  fields: Record<string, unknown>;
}

/** One schedule's rows, grouped; `T` is what the caller attaches to each row (its report rows). */
export type Sitting<T> = Pick<SittingGroup<T>, 'attached' | 'id' | 'prepare'>;

/** A sittings row's schedule fields: the Schedule's, and the request's Workflow and Upsert. */
export const ROW_SCHEDULE_FIELDS: ReadonlySet<string> = new Set(SCHEDULE_COLUMNS.map((column) => column.name));

class SittingGroup<T> {
  /** What the caller attached to each row, in row order. */
  readonly attached: T[] = [];
  /** Schedule fields, plus the request-level Workflow and Upsert. */
  private readonly fields: Record<string, unknown>;
  /** Line that set each field (absent: the field comes from the defaults). */
  private readonly setOn = new Map<string, number>();
  private readonly candidates: Record<string, unknown>[] = [];
  private readonly candidateLines: number[] = [];
  private readonly problems: Problem[] = [];
  private readonly candidateIds = new IdsOfOneInput(CANDIDATE_ID_RULE);

  constructor(
    private readonly csv: boolean,
    defaults: ScheduleDefaults,
  ) {
    this.fields = { ...defaults.schedule };
    if (defaults.workflow !== undefined) this.fields.Workflow = defaults.workflow;
    if (defaults.upsert !== undefined) this.fields.Upsert = defaults.upsert;
  }

  add(line: number, rowFields: Record<string, unknown>, candidate: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(rowFields)) {
      const firstLine = this.setOn.get(name);
      if (firstLine === undefined) {
        this.setOn.set(name, line);
        this.fields[name] = value;
      } else if (JSON.stringify(this.fields[name]) !== JSON.stringify(value)) {
        this.problems.push({
          line,
          field: requestPath(name),
          code: ErrorCode.ScheduleRowsDisagree,
          // A PIN's digits stay out of the report: the lines say where to look.
          message: SECRET_FIELDS.has(name)
            ? `${name} differs from line ${firstLine}; rows of one schedule must agree`
            : `${name} is ${quotedValue(value)} here but ${quotedValue(this.fields[name])} on line ${firstLine}; rows of one schedule must agree`,
        });
      }
    }
    // The same candidate twice in one schedule's rows: both rows fail the schedule, each naming the other's line.
    const repeated = this.candidateIds.repeated(idOf(candidate, 'CandidateExtId'), { file: '', line });
    if (repeated !== undefined) {
      this.problems.push({ ...repeated, line });
      return;
    }
    this.candidates.push(candidate);
    this.candidateLines.push(line);
  }

  fail(problem: Problem): void {
    this.problems.push(problem);
  }

  /** The rows of a candidate a later row of the schedule gives again: they fail it too, naming that row. */
  private repeatedLater(): Problem[] {
    if (!this.candidateIds.hasRepeats) return [];
    return this.candidateLines.flatMap((line, i) => {
      const problem = this.candidateIds.repeatedLater(
        { file: '', line },
        idOf(this.candidates[i] ?? {}, 'CandidateExtId'),
      );
      return problem === undefined ? [] : [{ ...problem, line }];
    });
  }

  /** The ScheduleExtId the rows and defaults give (null: a run chooses it, docs/runs.md, "An id examctl chooses"). */
  id(): string | null {
    return idOf(this.fields, 'ScheduleExtId');
  }

  /** The whole request, checked; problems carry the line they are about. */
  prepare(): Validation<PreparedSchedule> {
    const { Workflow, Upsert, ...schedule } = this.fields;
    const body: Record<string, unknown> = { Schedule: schedule, Candidates: this.candidates };
    if (Workflow !== undefined) body.Workflow = Workflow;
    if (Upsert !== undefined) body.Upsert = Upsert;
    const validation = this.csv ? coerceAndValidateScheduleRequest(body) : validateScheduleRequest(body);
    const lineOf = (field: string): number | undefined =>
      candidateLine(field, this.candidateLines) ?? this.setOn.get(/^(?:Schedule\.)?([A-Za-z]+)/.exec(field)?.[1] ?? '');
    const problems = [
      ...this.repeatedLater(),
      ...this.problems,
      ...(validation.ok ? [] : withLines(validation.problems, lineOf)),
    ];
    if (problems.length > 0 || !validation.ok) return { ok: false, problems };
    return { ok: true, value: { request: validation.value, candidateLines: this.candidateLines } };
  }
}

/** A candidate's user fields, which one file gives one value each (docs/interpretations.md, "One file, one id"). */
const USER_FIELDS = ['FirstName', 'LastName', 'Email'] as const;

/**
 * The sittings of one file, grouped by ScheduleExtId in order of first appearance (complete only once
 * every row was added); rows without one (and no default) form one schedule.
 */
export class Sittings<T = undefined> {
  private readonly groups = new Map<string, SittingGroup<T>>();
  /** Each candidate's id as first given, and each user field as the first row giving it. */
  private readonly people = new Map<
    string,
    { id: string; fields: ({ text: string; line: number; group: SittingGroup<T> } | undefined)[] }
  >();

  constructor(private readonly defaults: ScheduleDefaults) {}

  /** One candidate row: its schedule columns name (and describe) the schedule it belongs to. */
  add(row: SittingRow, attached: T): void {
    const scheduleCells: Record<string, unknown> = {};
    const candidate: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row.fields)) {
      if (ROW_SCHEDULE_FIELDS.has(name)) scheduleCells[name] = value;
      else candidate[name] = value;
    }
    // Coerced only to compare "yes" and "true" as equal; the request is checked (and coerced) whole in prepare().
    const rowFields = row.csv ? coerceFields('schedule', scheduleCells).fields : scheduleCells;
    const key = String(rowFields.ScheduleExtId ?? this.defaults.schedule.ScheduleExtId ?? '');
    let group = this.groups.get(key);
    if (group === undefined) {
      group = new SittingGroup<T>(row.csv, this.defaults);
      this.groups.set(key, group);
    }
    group.add(row.line, rowFields, candidate);
    group.attached.push(attached);
    const id = idOf(candidate, 'CandidateExtId');
    if (id === null) return;
    let person = this.people.get(id.toLowerCase());
    if (person === undefined) this.people.set(id.toLowerCase(), (person = { id, fields: [] }));
    // Email case, Unicode composition (NFC or NFD) and kinds of space are no difference; a blank field fails its own
    // row, not another schedule.
    const texts = USER_FIELDS.map((name) =>
      String(candidate[name] ?? '')
        .normalize('NFC')
        .replace(/\s+/g, ' ')
        .trim(),
    ).map((text, i) => (i === 2 ? text.toLowerCase() : text));
    for (const [i, text] of texts.entries()) {
      const first = person.fields[i];
      if (text === '' || first?.text === text || first?.group === group) continue;
      if (first === undefined) {
        person.fields[i] = { text, line: row.line, group };
        continue;
      }
      const differs = (name: string, line: number, other: number): Problem => ({
        line,
        field: 'CandidateExtId',
        code: ErrorCode.CandidateDiffersAcrossSchedules,
        message: `${name}'s ${USER_FIELDS[i]} differs from line ${other} (another schedule); one file gives a user one`,
      });
      group.fail(differs(id, row.line, first.line));
      first.group.fail(differs(person.id, first.line, row.line));
      return;
    }
  }

  get size(): number {
    return this.groups.size;
  }

  all(): Iterable<Sitting<T>> {
    return this.groups.values();
  }
}

/**
 * A whole request of one file (JSON), the defaults filling what it leaves out: as sent, checked, and the
 * ScheduleExtId it names (for the report).
 */
export function prepareScheduleRequest(
  fields: Record<string, unknown>,
  line: number,
  defaults: ScheduleDefaults,
): { id: string | null; prepared: Validation<PreparedSchedule> } {
  const body: Record<string, unknown> = { ...fields };
  if (fields.Workflow === undefined && defaults.workflow !== undefined) body.Workflow = defaults.workflow;
  if (fields.Upsert === undefined && defaults.upsert !== undefined) body.Upsert = defaults.upsert;
  if (isPlainObject(fields.Schedule)) body.Schedule = { ...defaults.schedule, ...fields.Schedule };
  const validation = validateScheduleRequest(body);
  const candidates = Array.isArray(fields.Candidates) ? fields.Candidates : [];
  return {
    id: scheduleIdOf(fields, defaults),
    prepared: validation.ok
      ? { ok: true, value: { request: validation.value, candidateLines: candidates.map(() => line) } }
      : validation,
  };
}

/** The ScheduleExtId a whole request names, its own or the defaults'. */
export function scheduleIdOf(fields: Record<string, unknown>, defaults: ScheduleDefaults): string | null {
  return isPlainObject(fields.Schedule) ? idOf({ ...defaults.schedule, ...fields.Schedule }, 'ScheduleExtId') : null;
}

/**
 * A whole request record, not a candidate row: JSON with any member of the request's own (Schedule,
 * Candidates, Workflow, Upsert) or with none, which the service refuses as a request: validated as one.
 */
export function isScheduleRequest(fields: Record<string, unknown>): boolean {
  let members = 0;
  for (const key in fields) {
    if (SCHEDULE_REQUEST_TABLE.names.has(key)) return true;
    members += 1;
  }
  return members === 0;
}

/** Puts the candidate's own line on the service's `Candidates[i]...` problems. */
export function withCandidateLines(problems: readonly Problem[], candidateLines: readonly number[]): Problem[] {
  return withLines(problems, (field) => candidateLine(field, candidateLines));
}

function candidateLine(field: string, candidateLines: readonly number[]): number | undefined {
  const candidate = /^Candidates\[(\d+)\]/.exec(field);
  return candidate ? candidateLines[Number(candidate[1])] : undefined;
}

function withLines(problems: readonly Problem[], lineOf: (field: string) => number | undefined): Problem[] {
  return problems.map((problem) => {
    if (problem.line !== undefined) return problem;
    const line = lineOf(problem.field);
    return line === undefined ? problem : { ...problem, line };
  });
}

/** A sittings row's field as the request names it (`Schedule.StartDateTime`): one path for reader and validation. */
export function sittingFieldPath(name: string): string {
  return ROW_SCHEDULE_FIELDS.has(name) ? requestPath(name) : name;
}

function requestPath(name: string): string {
  return SCHEDULE_REQUEST_TABLE.names.has(name) ? name : `Schedule.${name}`;
}
