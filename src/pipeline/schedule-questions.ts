import { say } from '../formats/terminal-text.js';
import { namedFirst } from '../formats/number-format.js';
import type { ScheduleDefaults } from '../domain/sittings.js';
import type { Problem } from '../domain/problem.js';
import type { LocalTimeOptions } from '../domain/local-time.js';
import { quoteWritten } from '../domain/written-times.js';
import { parseDateTime } from '../domain/date-time.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { isScheduleRequestRecord, type InputRecord } from '../input/record.js';
import type { RecordShaping } from '../input/field-map.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { promptIoOf, promptsOff, type CommandDeps } from '../context/command-deps.js';
import { openTargetDirectory } from '../context/target.js';
import type { TargetOf } from '../context/resolved-target.js';
import type { ScheduleFieldName, StoreChoices } from '../terminal/prompts.js';
import { stringOf } from './schedule-input.js';
import { firstRecord } from './command-input.js';

/* What `schedule push` asks and says before it sends: missing required fields, and what cannot be undone. */

export type Remembered = { line: number; id: string } | { line: number; problems: Problem[] };

/** After the run: the schedules' notes (`said`), then the first few ids the service chose, in the file's order. */
export async function sayAfterRun(
  said: readonly string[],
  remembered: readonly Remembered[],
  deps: CommandDeps,
): Promise<void> {
  // Answers come in as they complete; the note follows the file (first few only).
  const generated = remembered
    .filter((kept): kept is { line: number; id: string } => 'id' in kept)
    .sort((a, b) => a.line - b.line)
    .map((kept) => kept.id);
  const lines = [...said];
  if (generated.length > 0)
    lines.push(`generated ScheduleExtId: ${namedFirst(generated, 5)}${generated.length > 5 ? ' (see --report)' : ''}`);
  if (generated.length === 1)
    lines.push(`to change this schedule later instead of making another: --schedule-id ${generated[0]} --upsert`);
  for (const line of lines) await say(deps, line);
}

export function refusedProblems(remembered: readonly Remembered[]): Problem[] | undefined {
  const refused = remembered.find((kept): kept is { line: number; problems: Problem[] } => 'problems' in kept);
  return refused?.problems;
}

/** What was asked and how, so a correction asks the same way. */
interface AskedFields {
  names: ScheduleFieldName[];
  choices: StoreChoices | undefined;
  dates: LocalTimeOptions;
}

export async function correctAnswers(
  asked: AskedFields,
  problems: readonly Problem[],
  defaults: ScheduleDefaults,
  deps: CommandDeps,
): Promise<boolean> {
  const { offerCorrection, promptScheduleFields } = await import('../terminal/prompts.js');
  const io = promptIoOf(deps);
  const given = asked.names.map((name) => ({ name, label: name, value: stringOf(defaults.schedule[name]) }));
  const again = await offerCorrection(given, problems, io);
  if (again === null) return false;
  const earlier = Object.fromEntries(
    given.map((answer) => [answer.name, answer.value]).filter(([, value]) => value !== undefined),
  );
  const known = Object.fromEntries(
    Object.entries(defaults.schedule).filter(([field]) => !again.includes(field as ScheduleFieldName)),
  );
  Object.assign(
    defaults.schedule,
    await promptScheduleFields(again, io, known, {
      ...(asked.choices ? { choices: asked.choices } : {}),
      defaults: earlier,
      dates: asked.dates,
    }),
  );
  return true;
}

/** The required Schedule fields and the flag that gives each. */
const REQUIRED_FIELD_FLAGS = {
  AssessmentExtId: '--assessment',
  StartDateTime: '--start',
  GroupExtId: '--group',
  GroupName: '--group-name',
} as const;
type RequiredField = keyof typeof REQUIRED_FIELD_FLAGS;

/** A candidates file's required schedule fields come from flags or --schedule: asked on a terminal, else exit 2. */
export async function completeRequiredFields(
  defaults: ScheduleDefaults,
  records: () => AsyncIterable<InputRecord>,
  shaping: RecordShaping,
  options: GlobalOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<AskedFields | undefined> {
  const first = await firstRecord(records());
  if (first === undefined || isScheduleRequestRecord(first)) return undefined;
  const header = new Set(fieldColumns(first, shaping).map(normalizeColumnName));
  const missing = (Object.keys(REQUIRED_FIELD_FLAGS) as RequiredField[]).filter(
    (field) => defaults.schedule[field] === undefined && !header.has(normalizeColumnName(field)),
  );
  if (missing.length === 0) return undefined;
  const { missingValue, promptScheduleFields } = await import('../terminal/prompts.js');
  const flags = missing.map((field) => REQUIRED_FIELD_FLAGS[field]);
  const off = promptsOff(options, deps);
  if (off !== undefined) throw missingValue(flags.join(', '), off);
  await say(
    deps,
    `${first.source.file} holds candidates only: the schedule's required fields are asked (next time: ${flags.join(' ')})`,
  );
  // On the local target the store's assessments and groups are pickers: an id it lacks is not offered.
  const choices = await storeChoices(deps, target);
  // The Start prompt reads what --start would (--date-format, --timezone).
  Object.assign(
    defaults.schedule,
    await promptScheduleFields(missing, promptIoOf(deps), defaults.schedule, {
      ...(choices ? { choices } : {}),
      dates: shaping.dates,
    }),
  );
  return { names: missing, choices, dates: shaping.dates };
}

async function storeChoices(deps: CommandDeps, target: TargetOf): Promise<StoreChoices | undefined> {
  const directory = await (deps.openDirectory ?? openTargetDirectory)(await target(), deps);
  if (directory === null) return undefined;
  try {
    return { assessments: directory.assessments(), hierarchies: directory.hierarchies() };
  } finally {
    await directory.close();
  }
}

/** Schedules whose start is past, and rows with an empty ScheduleExtId, are named, at most this many, then counted. */
const PAST_SHOWN = 5;

/** The two warnings said before anything is sent, since neither can be undone (docs/human.md). */
export async function warnBeforeSending(
  defaults: ScheduleDefaults,
  records: () => AsyncIterable<InputRecord>,
  shaping: RecordShaping,
  dryRun: boolean,
  now: number,
  deps: CommandDeps,
): Promise<void> {
  const past: string[] = [];
  let pastCount = 0;
  let generatesId = false;
  // Rows (or requests) of a file that has ScheduleExtId, whose own is empty: named, for the column is there.
  const emptyIds: string[] = [];
  let emptyIdCount = 0;
  const seen = new Set<string>();
  for await (const record of records()) {
    // A candidates file's schedule is the flags' alone: one look settles it, with no pass over the file.
    const candidatesOnly =
      seen.size === 0 &&
      !isScheduleRequestRecord(record) &&
      Object.keys(scheduleCells(record)).length === 0 &&
      !ROW_SCHEDULE_CELLS.some((field) => hasFieldColumn(record, shaping, field));
    const schedule = isScheduleRequestRecord(record)
      ? ((record.fields.Schedule ?? {}) as Record<string, unknown>)
      : { ...defaults.schedule, ...scheduleCells(record) };
    const id =
      typeof schedule.ScheduleExtId === 'string' && schedule.ScheduleExtId.trim() !== ''
        ? schedule.ScheduleExtId.trim()
        : undefined;
    if (id === undefined) {
      generatesId = true;
      if (isScheduleRequestRecord(record) || hasFieldColumn(record, shaping, 'ScheduleExtId')) {
        emptyIdCount += 1;
        if (emptyIds.length < PAST_SHOWN) emptyIds.push(`${record.source.file}:${record.source.line}`);
      }
    }
    const key = id ?? `line ${record.source.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // Read as the rule reads it: a start the rule refuses (30 February, no zone) is that record's problem, no warning.
    const parsed =
      typeof schedule.StartDateTime === 'string' ? parseDateTime(schedule.StartDateTime.trim()) : undefined;
    const start = parsed?.ok === true ? parsed.epochMs : Number.NaN;
    if (!Number.isNaN(start) && start < now) {
      pastCount += 1;
      // The start as the file (or --start) wrote it, with the zone used, then UTC: the row is found by what it says.
      const utc = new Date(start).toISOString();
      const quoted = quoteWritten(utc, [...(record.written ?? []), ...(defaults.written ?? [])]);
      const when = quoted === utc ? String(schedule.StartDateTime) : quoted;
      if (past.length < PAST_SHOWN)
        past.push(
          `${id ?? (candidatesOnly ? 'the new schedule' : `${record.source.file}:${record.source.line}`)} (${when})`,
        );
    }
    if (candidatesOnly) break;
  }
  if (generatesId && !dryRun) {
    const without =
      emptyIdCount === 0
        ? 'no --schedule-id (and no ScheduleExtId column): every run makes a new schedule'
        : `no --schedule-id, and ScheduleExtId is empty on ${emptyIds.join(', ')}${emptyIdCount > emptyIds.length ? ` and ${emptyIdCount - emptyIds.length} more` : ''}: ` +
          'every run makes a new schedule for such rows';
    await say(
      deps,
      `note: ${without}, so running this again makes another one. The generated id is printed at the end; give it with --schedule-id <id> --upsert to update that schedule instead.`,
    );
  }
  if (pastCount > 0) {
    await say(
      deps,
      `warning: StartDateTime already past for ${past.join(', ')}${pastCount > past.length ? ` and ${pastCount - past.length} more` : ''}: ` +
        'such a schedule is activated at once and can no longer be updated',
    );
  }
}

/** The API fields a record's file gives as columns (its header through --map, or its keys), and the --set fields. */
function fieldColumns(record: InputRecord, shaping: RecordShaping): string[] {
  const header = record.raw?.header ?? Object.keys(record.fields);
  const names = header.map((name) => shaping.map.get(normalizeColumnName(name)) ?? name);
  return [...names, ...shaping.set.keys(), ...(shaping.computed?.fieldsOf(header) ?? [])];
}

function hasFieldColumn(record: InputRecord, shaping: RecordShaping, field: string): boolean {
  return fieldColumns(record, shaping).some((name) => normalizeColumnName(name) === normalizeColumnName(field));
}

/** The schedule fields a sittings row may give itself, which win over the flags. */
const ROW_SCHEDULE_CELLS = ['ScheduleExtId', 'StartDateTime'] as const;

/** A sittings row's own schedule cells (ROW_SCHEDULE_CELLS). */
function scheduleCells(record: InputRecord): Record<string, unknown> {
  const cells: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record.fields)) {
    const field = ROW_SCHEDULE_CELLS.find((cell) => normalizeColumnName(cell) === normalizeColumnName(name));
    if (field !== undefined && value !== '' && value !== undefined) cells[field] = value;
  }
  return cells;
}
