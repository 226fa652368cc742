import { holdsKnownSecret } from '../domain/known-secrets.js';
import { quotedValue, redactUrl, type Problem } from '../domain/problem.js';
import type { MappedValue } from '../input/record.js';
import {
  isNotSentItem,
  type ItemAction,
  type ReportEntry,
  type ReportHeader,
  type ReportItem,
  type ReportSink,
  type ReportSummary,
  type ReportTarget,
  type SourceRow,
  type SyncMemoryNote,
} from './run-report.js';
import { csvLine, csvPreamble, PLAIN_CSV, type CsvDialect } from '../formats/csv-cell.js';
import {
  addedColumnsOf,
  PIN_KEY,
  reportRunOf,
  SOURCE_COLUMNS,
  statusCell,
  WITHHELD_PIN,
  WRITTEN_COLUMNS,
} from '../formats/report-csv-contract.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { HIERARCHY_CELL_FLAGS } from '../domain/coercion.js';
import type { TextSink } from '../system/text-sink.js';
import { counted, formatCount } from '../formats/number-format.js';
import { errorMember } from './error-document.js';
import {
  ACTION_WORDS,
  actionWords,
  itemAction,
  SHOWN_ORDER,
  type ActionCounts,
  type PlanAction,
} from './plan-actions.js';
import { terminalLine } from '../formats/terminal-text.js';

/** Said of a run that found no sync memory for its population (docs/sync.md, "When the memory is lost"). */
export function noMemorySentence(header: ReportHeader): string | undefined {
  const note = header.syncMemory;
  // A memory of another store (docs/sync.md, "Where the store stands").
  if (note?.replaced === true) {
    const then = note.left ? 'left as it is' : "this store's memory starts again";
    return `the sync memory ${note.file} is of another store (this one holds none of the store heads it saw): not used; ${then}`;
  }
  if (note?.otherMemories !== undefined) return otherMemoriesSentence(note.file, note.otherMemories);
  if (note !== undefined && note.populationFound && note.missesRun !== undefined)
    return missedRunSentence(note.file, note.population, note.missesRun, note.kind);
  if (note === undefined || note.populationFound) return undefined;
  const population = populationWords(note.population ?? undefined);
  const missing = note.found
    ? `the sync memory of ${describeTarget(header.target)} (${note.file}) has no record of ${population}`
    : `no sync memory for ${describeTarget(header.target)} (looked for ${note.file})`;
  // A dry run says what the run would do, in the present: nothing was done.
  const was = header.dryRun ? 'is' : 'was';
  const costs =
    note.kind === 'schedules'
      ? `no schedule ${was} left out as unchanged, and no later run names a candidate this one registered when the file drops it`
      : `no record ${was} left out as unchanged, no leaver ${was} disabled and no link or flag ${was} pruned, and no later night does it for the users who left or moved meanwhile`;
  return (
    `${missing}: ${costs}; ` +
    `if a memory was lost, restore it (examctl synced import) or rebuild it (${adoptCommand(note.kind, note.population)}) before the next night (docs/sync.md, "When the memory is lost")`
  );
}

/** The words naming a population in a message: `--population staff`, or the runs without one. */
export function populationWords(population: string | undefined): string {
  return population === undefined ? 'the runs without --population' : `--population ${population}`;
}

/** Other memories of the store's instance (docs/sync.md, "The sync memory"). */
export function otherMemoriesSentence(file: string, others: readonly string[]): string {
  const keep = "keep one: synced forget this one, or remove the other's directory";
  return `another memory of this store: ${others.join(', ')}, besides ${file} (a user sent under one is not disabled from the other); ${keep}`;
}

/** The command that rebuilds each kind of memory (docs/sync.md, "When the memory is lost"). */
export const ADOPT_COMMAND = {
  users: 'synced adopt',
  schedules: 'synced adopt-schedules',
  collections: 'synced adopt-collections',
} as const;
const adoptCommand = (kind: SyncMemoryNote['kind'] = 'users', population: string | null): string =>
  `examctl ${ADOPT_COMMAND[kind]}${population === null ? '' : ` --population ${population}`}`;

/** The command that feeds each kind of memory, as a run journal names it. */
export const FEEDING_COMMAND = {
  users: 'user sync',
  schedules: 'schedule push',
  collections: 'collection add',
} as const;

/** What a memory that misses a run's work lets happen, by what the memory is of. */
const MISSED_WORK = {
  users:
    'so a user it created is not disabled when it leaves the file, a link or flag it added is not pruned, and a row it changed may be judged unchanged',
  schedules:
    'so a candidate it registered is not named when the file drops it, and a schedule it changed may be judged unchanged',
  collections: 'so --existing ok fails for a collection it made (examctl finds no record of sending it)',
} as const;

/** What a memory that misses a run costs, and the ways back (docs/sync.md, "A state service"). */
export function missedRunSentence(
  file: string,
  population: string | null,
  missed: NonNullable<SyncMemoryNote['missesRun']>,
  kind: SyncMemoryNote['kind'] = 'users',
): string {
  // Only user sync has populations: the others' runs are named by their command.
  const who = kind === 'users' ? populationWords(population ?? undefined) : FEEDING_COMMAND[kind];
  if (missed.cut === true) {
    return (
      `the sync memory at ${file} lacks the end of run ${missed.run} of ${who} (started at ${missed.since}), which finished (its journal in this runs directory says so): ` +
      `the file was cut short (a partial restore or copy, a full disk): it misses what that run did last, ${MISSED_WORK[kind]}; ${missedRecovery(kind, population)}`
    );
  }
  if (missed.later === true) {
    return (
      `the sync memory at ${file} is older than run ${missed.run} of ${who} (started at ${missed.since}, in this runs directory): it misses what that run did ` +
      `(a memory restored from before it: a CI cache, a copy, an older export), ${MISSED_WORK[kind]}; ${missedRecovery(kind, population)}`
    );
  }
  return (
    `the sync memory at ${file} misses what run ${missed.run} of ${who} did: it started at ${missed.since} and never stored its memory (killed, or its store failed), ` +
    `${MISSED_WORK[kind]}; ` +
    `where its journal is, examctl runs resume ${missed.run} stores what it did; else ${missedRecovery(kind, population)}`
  );
}

/** The recovery of a memory that misses runs: the nights' files since, adopted in order. */
function missedRecovery(kind: SyncMemoryNote['kind'], population: string | null): string {
  const files =
    kind === 'users'
      ? "--file <each night's file since the memory's newest run, in order> (--tentative for a night whose outcome is not known)"
      : '--file <the last file sent>';
  return `rebuild it before the next night: ${adoptCommand(kind, population)} ${files} (docs/sync.md, "When the memory is lost")`;
}

export function describeTarget(target: ReportTarget): string {
  // A URL's user info or query (an older memory may hold one): never shown.
  return target.kind === 'local' ? `local store ${target.store}` : `remote ${redactUrl(target.baseUrl)}`;
}

function itemJson(item: ReportItem): string {
  // Fixed key order so reports diff cleanly between runs.
  const ordered: Record<string, unknown> = {
    source: item.source,
    id: item.id,
    status: item.status,
    errors: item.errors,
  };
  if (item.warnings !== undefined) ordered.warnings = item.warnings;
  if (item.mapped !== undefined) ordered.mapped = item.mapped;
  if (item.action !== undefined) ordered.action = item.action;
  if (item.note !== undefined) ordered.note = item.note;
  if (item.removed !== undefined) ordered.removed = item.removed;
  if (item.changes !== undefined) ordered.changes = item.changes;
  return JSON.stringify(ordered);
}

/** The run report as one JSON document, written item by item; the summary last, known only then. */
export class JsonReportWriter implements ReportSink {
  private itemsWritten = 0;
  private opened = false;
  private readonly plan: RunPlan | undefined;
  private stopReason = '';

  constructor(
    private readonly out: TextSink,
    private readonly header: ReportHeader,
  ) {
    this.plan = header.dryRun ? new RunPlan(header.syncMemory !== undefined || header.plans === true) : undefined;
  }

  private open(): void | Promise<void> {
    this.opened = true;
    const { plans: _plans, ...shown } = this.header;
    const head = JSON.stringify(shown);
    return this.out.write(`${head.slice(0, -1)},"items":[`);
  }

  // Not async: a write that needs no waiting (most, behind a BufferedSink) costs no promise.
  item(entry: ReportEntry): void | Promise<void> {
    this.plan?.add(entry.item);
    const text = `${this.itemsWritten === 0 ? '\n' : ',\n'}${itemJson(entry.item)}`;
    this.itemsWritten += 1;
    if (this.opened) return this.out.write(text);
    return inSequence([() => this.open(), () => this.out.write(text)]);
  }

  async finish(summary: ReportSummary): Promise<void> {
    if (!this.opened) await this.open();
    // A dry run that planned against a store says so in the words of the screen's plan line.
    const actions = summary.actions ?? {};
    const plan = this.plan?.planned ? `,"plan":${JSON.stringify(planCounts(actions))}` : '';
    // The movers (prune) are the summary's own key too.
    const movers = actions.prune ?? 0;
    await this.out.write(
      `${this.itemsWritten === 0 ? '' : '\n'}]${this.stopReason},"summary":${JSON.stringify(movers > 0 ? { ...summary, movers } : summary)}${plan}}\n`,
    );
  }

  stopped(error: unknown): void {
    this.stopReason = `,${errorMember(error)}`;
  }
}

function errorCodes(errors: readonly Problem[]): string {
  return errors
    .filter((e) => e.code !== null)
    .map((e) => String(e.code))
    .join('|');
}

/** `users.csv:12 [stu-1] Email 209 message`, as the human summary and the JUnit report say a problem. */
export function problemLine(item: ReportItem, problem: Problem, id = ''): string {
  return `${item.source.file}:${problem.line ?? item.source.line}${id} ${problem.field || '-'} ${problem.code ?? '-'} ${problem.message}`;
}

/**
 * `Email 209 is not a valid address`, the field and code left out where there are none (HTML note, adopt's
 * refusals).
 */
export function problemWords({ field, code, message }: Problem): string {
  return [field, code ?? '', message].filter((part) => part !== '').join(' ');
}

/** Errors (or warnings) as one cell: `field: message`, joined with ` | `. */
export function errorMessages(errors: readonly Pick<Problem, 'field' | 'message'>[] = []): string {
  return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join(' | ');
}

/** Secret columns: kept in the header, cells emptied or withheld (docs/cli.md, "Run report"). */
const PASSWORD_KEY = normalizeColumnName('Password');

/** What the CSV report does with an input column. */
export const enum Column {
  Drop,
  Keep,
  Blank,
  Withheld,
}

function columnMode(name: string, added: boolean | undefined): Column {
  const key = normalizeColumnName(name);
  // status/error_* are written fresh; unnamed columns before them would make the report refused as input.
  if (key === '' || added === true) return Column.Drop;
  return key === PASSWORD_KEY ? Column.Blank : key === PIN_KEY ? Column.Withheld : Column.Keep;
}

/** A multi-row item's errors or warnings for one of its rows: those naming its line, and those naming none. */
export function onRow<T extends { line?: number }>(entries: readonly T[], line: number): readonly T[] {
  return entries.length === 0 ? entries : entries.filter((entry) => entry.line === undefined || entry.line === line);
}

const columnModes = new WeakMap<readonly string[], Column[]>();

/** What a report does with each column of a header, worked out once per header (all rows of a file share one array). */
export function columnModesOf(header: readonly string[]): Column[] {
  let modes = columnModes.get(header);
  if (modes === undefined) {
    const added = addedColumnsOf(header);
    modes = header.map((name, at) => columnMode(name, added[at]));
    columnModes.set(header, modes);
  }
  return modes;
}

/** The input columns a report keeps (report columns and unnamed ones dropped), in order. */
export function keptHeader(header: readonly string[]): string[] {
  const modes = columnModesOf(header);
  return header.filter((_, i) => modes[i] !== Column.Drop);
}

/** Written for an input cell holding a secret examctl knows (domain/known-secrets.ts). */
export const REDACTED_CELL = '[redacted]';

/** One source row as a report row (CSV or xlsx): kept cells, then the status cells of this line's errors. */
export function reportRowCells(item: ReportItem, row: SourceRow, run = ''): string[] {
  const modes = columnModesOf(row.header);
  const errors = onRow(item.errors, row.line);
  const cells: string[] = [];
  for (let i = 0; i < row.header.length; i++) {
    const mode = modes[i];
    if (mode === Column.Keep) {
      const cell = row.cells[i] ?? '';
      cells.push(holdsKnownSecret(cell) ? REDACTED_CELL : cell);
    } else if (mode === Column.Blank) cells.push('');
    else if (mode === Column.Withheld) cells.push((row.cells[i] ?? '').trim() === '' ? '' : WITHHELD_PIN);
  }
  cells.push(...statusCells(item, errors, run, reportRunOf(row) ?? run));
  return cells;
}

/** An item without source rows (JSON, flags, arguments) as a report row: file, line, id and the status cells. */
export function sourceRowCells(item: ReportItem, run = ''): string[] {
  return [item.source.file, String(item.source.line), item.id ?? '', ...statusCells(item, item.errors, run)];
}

/** status, error_codes, error_messages, action, note, run (`rowRun`: a row fed back names its own). */
function statusCells(item: ReportItem, errors: readonly Problem[], run: string, rowRun = run): string[] {
  // In doubt: the id to look for, and this run, whose resume settles it (docs/runs.md, "An id examctl chooses").
  const doubt = item.inDoubt === true;
  const note = item.note ?? (doubt ? `may exist as ${item.id} (the id examctl chose)` : '');
  return [statusCell(item), errorCodes(errors), errorMessages(errors), item.action ?? '', note, doubt ? run : rowRun];
}

export function inSequence(steps: readonly (() => void | Promise<void>)[], from = 0): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = (steps[i] as () => void | Promise<void>)();
    if (pending !== undefined) return pending.then(() => inSequence(steps, i + 1));
  }
}

/** The header of a report of items without source rows (JSON, flags, arguments). */
const SOURCE_HEADER_LINE = csvLine([...SOURCE_COLUMNS, ...WRITTEN_COLUMNS]);

/** CSV report (docs/cli.md, "Run report"), fixed and fed back; `onlyNotOk` keeps the rows that still need work. */
export class CsvReportWriter implements ReportSink {
  private headerWritten = false;

  constructor(
    private readonly out: TextSink,
    private readonly onlyNotOk = false,
    /** The run's id (its `run` column), when journaled. */
    private readonly run = '',
  ) {}

  /** The input's header, seen before any row was written (see `sourceHeader`). */
  private inputHeader: readonly string[] | undefined;
  /** The input's dialect (delimiter, BOM, `sep=` line), kept by the report; plain CSV for JSON input. */
  private dialect: CsvDialect = PLAIN_CSV;

  /** The report's first line(s): the input's BOM and `sep=` line, then its header and the report columns. */
  private headerLine(header: readonly string[]): string {
    return (
      csvPreamble(this.dialect) +
      csvLine([...keptHeader(header), ...WRITTEN_COLUMNS], this.dialect.delimiter, this.dialect.lineEnd)
    );
  }

  sourceHeader(header: readonly string[], dialect?: CsvDialect): void {
    if (this.inputHeader !== undefined) return;
    this.inputHeader = header;
    if (dialect !== undefined && !this.headerWritten) this.dialect = dialect;
  }

  // One write per item, and no promise unless the sink needs waiting for.
  item({ item, rows }: ReportEntry): void | Promise<void> {
    if (this.onlyNotOk && item.status === 'ok') {
      if (rows !== undefined && rows.length > 0)
        this.sourceHeader((rows[0] as SourceRow).header, (rows[0] as SourceRow).dialect);
      return;
    }
    let text = '';
    if (rows && rows.length > 0) {
      for (const row of rows) {
        if (!this.headerWritten) {
          if (row.dialect !== undefined) this.dialect = row.dialect;
          text += this.headerLine(row.header);
          this.headerWritten = true;
        }
        text += csvLine(reportRowCells(item, row, this.run), this.dialect.delimiter, this.dialect.lineEnd);
      }
      return this.out.write(text);
    }
    if (!this.headerWritten) {
      text += SOURCE_HEADER_LINE;
      this.headerWritten = true;
    }
    text += csvLine(sourceRowCells(item, this.run));
    return this.out.write(text);
  }

  async finish(): Promise<void> {
    if (this.headerWritten) return;
    // Nothing reported: the input's own header when known, so the (empty) report is still its kind of file.
    await this.out.write(this.inputHeader !== undefined ? this.headerLine(this.inputHeader) : SOURCE_HEADER_LINE);
  }
}

const SHOWN_ERRORS = 20;
const SHOWN_WARNINGS = 5;
/** Distinct values of one field the map file gave that a dry run's summary lists, each with its count of rows. */
const SHOWN_MAPPED = 5;

/** `Hierarchies "DEPT-MATH" from Department "Mathematics"`. */
function mappedValueText(value: MappedValue): string {
  const from = Object.entries(value.from).map(([column, cell]) => `${column} ${quotedValue(cell)}`);
  return `${value.field} ${quotedValue(value.value)} from ${from.join(', ')}`;
}

interface HumanSummaryExtras {
  /** The --report file as given, asked at the end (then no --report hint); undefined when it could not be written. */
  reportFile?: () => string | undefined;
  /** An HTML report's address (`file:///...`): said beside where it was written, for a person to open. */
  reportPage?: string;
  /** Only the head, the counts and where the report was written (a refused run: every item has the same reason). */
  countsOnly?: boolean;
  /** The lines the command's job adds beside the counts (RecordJob.summaryNotes). */
  notes?: readonly SummaryNote[];
}

/** A count beside the totals in the command's words (`4,950 unchanged (not sent)`), declared by its job. */
export interface SummaryNote {
  counts(item: ReportItem): boolean;
  /** What the counted items are, said after their number (`4,950`), in a real run or a dry run. */
  words(count: number, dryRun: boolean): string;
  /** Said of a dry run too; by default a dry run has its plan instead. */
  readonly inDryRun?: boolean;
}

/** The human summary (stderr; docs/cli.md, "Run report"), in bounded memory. */
export class HumanSummaryWriter implements ReportSink {
  private readonly shown: string[] = [];
  private hidden = 0;
  /** Skipped items that say only that the run stopped before them (`isNotSentItem`). */
  private notSent = 0;
  private readonly shownWarnings: string[] = [];
  private warnings = 0;
  /** A dry run's values from the map file, by field: up to SHOWN_MAPPED shown with counts, the rest counted. */
  private readonly mapped = new Map<string, { shown: Map<string, number>; more: number }>();
  private readonly codes = new ErrorCodeTally();
  private readonly plan: RunPlan;
  /** How many items each of the job's notes counts. */
  private readonly noted: number[];

  constructor(
    private readonly out: TextSink,
    private readonly header: ReportHeader,
    /** Draws the counts (a table on a terminal); default: one plain line. */
    private readonly renderCounts?: (summary: ReportSummary, dryRun: boolean) => string,
    private readonly extras: HumanSummaryExtras = {},
  ) {
    this.noted = (extras.notes ?? []).map(() => 0);
    // A real run has no plan: the memory's says so only for a dry run.
    this.plan = new RunPlan(header.dryRun && (header.syncMemory !== undefined || header.plans === true));
  }

  item({ item }: ReportEntry): void {
    const { dryRun } = this.header;
    const id = item.id ? ` [${shownId(item.id)}]` : '';
    if (dryRun) this.plan.add(item);
    const notes = this.extras.notes;
    if (notes !== undefined) {
      for (let i = 0; i < notes.length; i++) {
        const note = notes[i] as SummaryNote;
        if ((!dryRun || note.inDryRun === true) && note.counts(item)) this.noted[i] = (this.noted[i] ?? 0) + 1;
      }
    }
    for (const error of item.errors) this.codes.add(error);
    // Items the stopped run never sent all say the same: counted, not listed above the real errors.
    if (isNotSentItem(item)) this.notSent += 1;
    else
      for (const error of item.errors) {
        if (this.shown.length >= SHOWN_ERRORS) {
          this.hidden += 1;
          continue;
        }
        // The file name, the id and the message can carry what the input or the service put there.
        this.shown.push(terminalLine(`  ${problemLine(item, error, id)}`));
      }
    // A failure's note (a resume's "may have created it") is said beside its errors; an ok item's stays in the report.
    if (item.note !== undefined && item.errors.length > 0 && !isNotSentItem(item)) {
      if (this.shown.length >= SHOWN_ERRORS) this.hidden += 1;
      else this.shown.push(terminalLine(`    note: ${item.note}`));
    }
    if (dryRun && item.mapped !== undefined) this.countMapped(item.mapped);
    if (item.warnings === undefined) return;
    for (const warning of item.warnings) {
      this.warnings += 1;
      if (this.shownWarnings.length >= SHOWN_WARNINGS) continue;
      // Most messages start with the field's name already: not said twice.
      const what =
        warning.field === '' || warning.message.startsWith(warning.field)
          ? warning.message
          : `${warning.field} ${warning.message}`;
      this.shownWarnings.push(terminalLine(`  ${item.source.file}:${warning.line ?? item.source.line}${id} ${what}`));
    }
  }

  private countMapped(values: readonly MappedValue[]): void {
    for (const value of values) {
      let field = this.mapped.get(value.field);
      if (field === undefined) this.mapped.set(value.field, (field = { shown: new Map(), more: 0 }));
      const text = mappedValueText(value);
      const count = field.shown.get(text);
      if (count !== undefined) field.shown.set(text, count + 1);
      else if (field.shown.size < SHOWN_MAPPED) field.shown.set(text, 1);
      else field.more += 1;
    }
  }

  /** What the map file made of the export, each value beside its cells: the dry run's preview of the translation. */
  private mappedLines(): string[] {
    if (this.mapped.size === 0) return [];
    const lines = ['values from the map file, beside the cells they came from:'];
    for (const [field, { shown, more }] of this.mapped) {
      for (const [text, count] of shown)
        lines.push(terminalLine(`  ${text}${count > 1 ? ` (${formatCount(count)} rows)` : ''}`));
      if (more > 0)
        lines.push(
          terminalLine(`  ${field}: ... and ${formatCount(more)} more rows (--report <file>.json shows each row's)`),
        );
    }
    return lines;
  }

  async finish(summary: ReportSummary): Promise<void> {
    const { command, target, dryRun } = this.header;
    const n = formatCount;
    const counts = this.renderCounts
      ? this.renderCounts(summary, dryRun).trimEnd()
      : `${counted(summary.total, 'item')}: ${n(summary.ok)} ${dryRun ? 'valid' : 'ok'}, ${n(summary.partial)} partial, ${n(summary.failed)} ${dryRun ? 'invalid' : 'failed'}, ${n(summary.skipped)} skipped`;
    const dryRunNote = !dryRun
      ? ''
      : target.kind === 'remote'
        ? ' (dry run: only the file was checked; nothing was sent)'
        : ' (dry run: nothing changed)';
    const sync = (this.extras.notes ?? []).flatMap((note, i) => {
      const count = this.noted[i] ?? 0;
      return count > 0 ? [`${n(count)} ${note.words(count, dryRun)}`] : [];
    });
    // Every line passes the terminal gate (docs/security.md, "Terminals") but the counts: examctl's own, and a
    // colour table's escapes the gate would turn to `?[36m`.
    const noMemory = noMemorySentence(this.header);
    const memory = noMemory === undefined ? [] : [terminalLine(noMemory)];
    const reportFile = this.extras.reportFile?.();
    const page = this.extras.reportPage === undefined ? '' : ` (open ${this.extras.reportPage} in a browser)`;
    const written = reportFile === undefined ? [] : [terminalLine(`report written to ${reportFile}${page}`)];
    const head = [
      terminalLine(`${command}${dryRunNote} on ${describeTarget(target)}`),
      counts,
      ...actionsLine(summary),
    ];
    // A refused run went nowhere: what a night without its memory costs is not said (a refusal for it says so).
    if (this.extras.countsOnly === true) {
      await this.out.write(`${[...head, ...written].join('\n')}\n`);
      return;
    }
    const lines = [
      ...head,
      ...(sync.length > 0 ? [sync.join(', ')] : []),
      ...memory,
      ...retriedLine(summary),
      ...this.plan.lines(summary.actions ?? {}).map(terminalLine),
      ...this.shown,
    ];
    // Say where the rest can be read, so a long run's errors are never a dead end.
    const more = (count: number, kinds: string) =>
      terminalLine(
        `  ... and ${n(count)} more (${reportFile === undefined ? `--report <file>.${kinds} lists every one` : `every one is in ${reportFile}`})`,
      );
    if (this.hidden > 0) lines.push(more(this.hidden, 'csv'));
    const codes = this.codes.entries();
    if (this.hidden > 0 || this.notSent > 0 || codes.some((entry) => entry.count > 1))
      lines.push('errors by code:', ...formatErrorCodeCounts(codes).map(terminalLine));
    if (this.warnings > 0) {
      // Values sent as they were, but which look mangled by a spreadsheet: worth a look, not a failure.
      lines.push(`${counted(this.warnings, 'warning')} (worth a look before they are used):`, ...this.shownWarnings);
      if (this.warnings > this.shownWarnings.length)
        lines.push(more(this.warnings - this.shownWarnings.length, 'xlsx or .json'));
    }
    lines.push(...this.mappedLines(), ...written);
    await this.out.write(`${lines.join('\n')}\n`);
  }
}

/** `retried 7 requests (503: 5, timeout: 2)`: retries are otherwise silent; none, no line. */
function retriedLine(summary: ReportSummary): string[] {
  if (summary.retried === undefined || summary.retried === 0) return [];
  const causes = Object.entries(summary.retriedByCause ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([cause, count]) => `${cause}: ${formatCount(count)}`)
    .join(', ');
  return [`retried ${counted(summary.retried, 'request')}${causes === '' ? '' : ` (${causes})`}`];
}

/** Counts the items, fans them out to every sink, and says how the run ends. */
export class RunReportBuilder {
  readonly summary: ReportSummary = { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 };

  constructor(
    private readonly sinks: readonly ReportSink[],
    /** A dry run's items are marked, so a CSV or xlsx report never writes `ok` for what was not sent. */
    private readonly dryRun = false,
  ) {}

  /** The CSV input's header, for reports that must show it even when no row of it is reported. */
  sourceHeader(header: readonly string[], dialect?: CsvDialect): void {
    for (const sink of this.sinks) sink.sourceHeader?.(header, dialect);
  }

  stopped(error: unknown): void {
    for (const sink of this.sinks) sink.stopped?.(error);
  }

  /** Returns a promise only when a sink needs waiting for (back-pressure), so 500k items cost no 500k promises. */
  add(entry: ReportEntry): void | Promise<void> {
    this.summary.total += 1;
    this.summary[entry.item.status] += 1;
    // A partial item was applied in part: its action counts, as the actions line and its report row say.
    const applied = entry.item.status === 'ok' || entry.item.status === 'partial';
    if (applied && entry.item.action !== undefined && !this.dryRun) countAction(this.summary, entry.item.action);
    // Marked in place (the dispatcher's own entry): a copy was a tenth of a 500k-row dry run's CPU. Before its
    // action is counted: a dry run's failed item without a plan is invalid, as every writer reads it.
    if (this.dryRun) entry.item.dryRun = true;
    const action = itemAction(entry.item);
    const actions = (this.summary.actions ??= {});
    actions[action] = (actions[action] ?? 0) + 1;
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) {
      const pending = (sinks[i] as ReportSink).item(entry);
      if (pending instanceof Promise) return this.addRest(pending, entry, i + 1);
    }
  }

  private async addRest(pending: Promise<void>, entry: ReportEntry, from: number): Promise<void> {
    await pending;
    for (let i = from; i < this.sinks.length; i++) await (this.sinks[i] as ReportSink).item(entry);
  }

  /** Finishes every sink in order; `beforeLast` runs before the last (the human summary says where the report is). */
  async finish(beforeLast?: () => Promise<void>): Promise<void> {
    const last = this.sinks.length - 1;
    for (let i = 0; i < last; i++) await (this.sinks[i] as ReportSink).finish(this.summary);
    await beforeLast?.();
    if (last >= 0) await (this.sinks[last] as ReportSink).finish(this.summary);
  }
}

/** Counts an ok or partial item's action in a real run's summary (docs/cli.md, "Created and updated"). */
export function countAction(summary: ReportSummary, action: ItemAction, count = 1): void {
  if (summary.created === undefined) {
    summary.created = 0;
    summary.updated = 0;
  }
  summary[action] = (summary[action] ?? 0) + count;
}

/** Actions that are not something a run did to the target. */
const NOT_DONE: ReadonlySet<PlanAction> = new Set(['fails', 'invalid', 'skipped']);

/** `5 ok: 2 created, 3 updated` (zeros left out); none when no ok or partial item had an action. */
function actionsLine(summary: ReportSummary): string[] {
  if (summary.created === undefined || summary.actions === undefined) return [];
  const done: ActionCounts = {};
  for (const [action, count] of Object.entries(summary.actions) as [PlanAction, number][])
    if (!NOT_DONE.has(action)) done[action] = count;
  if (Object.keys(done).length === 0) return [];
  // A partial item was applied in part: its action is counted, and said as partial, not as ok.
  const partial = Object.values(done).reduce((sum, count) => sum + count, 0) - summary.ok;
  const whose =
    partial > 0 ? `${formatCount(summary.ok)} ok and ${formatCount(partial)} partial` : `${formatCount(summary.ok)} ok`;
  return [`${whose}: ${actionWords(done, false)}`];
}

/** Exit status of a completed run: 0 when every item is ok, else 1 (docs/cli-contract.md, "Exit status"). */
export function exitCodeFor(summary: ReportSummary): 0 | 1 {
  return summary.ok === summary.total ? 0 : 1;
}

/** One code's count in the human summary (unnumbered problems: one per message, up to a cap). */
interface ErrorCodeCount {
  code: number | null;
  count: number;
  /** The first message seen with this code. */
  message: string;
  /** How many different messages came under it (values differ: three unknown words are three), up to DISTINCT_KEPT. */
  distinct?: number;
}

/** Different messages counted per entry; past it the count shows as "N or more". */
const DISTINCT_KEPT = 100;

/** Distinct unnumbered messages kept apart; past it they share one "other" entry. */
const UNNUMBERED_KINDS = 50;
const OTHER = 'other problems without a code';

/** An unnumbered message without the values it quotes: "too large to read (3 MiB)" and "(4 MiB)" are one cause. */
function causeOf(message: string): string {
  return message.replace(/"[^"]*"|'[^']*'|\[[^\]]*\]|\d+(?:[.,:]\d+)*/g, '#');
}

export class ErrorCodeTally {
  private readonly counts = new Map<string, ErrorCodeCount>();
  /** Each entry's different messages (bounded: DISTINCT_KEPT). */
  private readonly messages = new Map<ErrorCodeCount, Set<string>>();
  private unnumberedKinds = 0;

  add(problem: Problem): void {
    let key = problem.code === null ? `-${causeOf(problem.message)}` : String(problem.code);
    let entry = this.counts.get(key);
    if (entry === undefined && problem.code === null) {
      if (this.unnumberedKinds >= UNNUMBERED_KINDS) {
        key = `-${OTHER}`;
        entry = this.counts.get(key);
      } else {
        this.unnumberedKinds += 1;
      }
    }
    if (entry === undefined) {
      entry = { code: problem.code, count: 0, message: key === `-${OTHER}` ? OTHER : problem.message };
      this.counts.set(key, entry);
    }
    entry.count += 1;
    if (entry.message === OTHER) return;
    let seen = this.messages.get(entry);
    if (seen === undefined) this.messages.set(entry, (seen = new Set()));
    if (seen.size < DISTINCT_KEPT) seen.add(problem.message);
    if (seen.size > 1) entry.distinct = seen.size;
  }

  /** Most frequent first; ties by code, unnumbered last. */
  entries(): ErrorCodeCount[] {
    return [...this.counts.values()].sort(
      (a, b) =>
        b.count - a.count ||
        (a.code ?? Number.MAX_SAFE_INTEGER) - (b.code ?? Number.MAX_SAFE_INTEGER) ||
        (a.message < b.message ? -1 : 1),
    );
  }
}

/** `  209 x 12  Email is not a valid address`, codes aligned; `-` for an unnumbered problem. */
export function formatErrorCodeCounts(entries: readonly ErrorCodeCount[]): string[] {
  const labels = entries.map((entry) => `${entry.code ?? '-'} x ${formatCount(entry.count)}`);
  const width = Math.max(0, ...labels.map((label) => label.length));
  return entries.map(
    (entry, index) => `  ${labels[index]!.padEnd(width)}  ${entry.message}${differentMessages(entry)}`,
  );
}

/** Said when one line counts different messages (other values, other words): the example is one of them. */
function differentMessages(entry: ErrorCodeCount): string {
  const distinct = entry.distinct ?? 1;
  if (distinct <= 1) return '';
  return ` (the first of ${distinct >= DISTINCT_KEPT ? `${DISTINCT_KEPT} or more` : formatCount(distinct)} different messages: the report has each)`;
}

/** The JSON report's `plan`: a dry run's counts by action in its own keys (docs/cli.md, "The local store"). */
type PlanCounts = Record<'toCreate' | 'toUpdate' | 'unchanged' | 'invalid', number> &
  Partial<Record<(typeof MORE_PLAN_KEYS)[number][0], number>>;

/** The `plan` keys said only when not zero, by action (`prune`: the movers of --prune-memberships). */
const MORE_PLAN_KEYS = [
  ['toSend', 'send'],
  ['toDisable', 'disable'],
  ['toEnable', 'enable'],
  ['toPrune', 'prune'],
  ['toRemove', 'remove'],
  ['leftAlone', 'left'],
] as const;

const SHOWN_RECORDS = 10;

/** An id in the summary: over 60 characters, cut as any quoted value (docs/security.md §2). */
const shownId = (id: string): string => (id.length > 60 ? quotedValue(id) : id);

/** A record's plan line: `+ stu-1`, `~ stu-2 (LastName)`, `- stu-5 (disable login)`, `! stu-4 (invalid)`. */
function planLine(action: PlanAction, item: ReportItem): string {
  const id = shownId(item.id ?? '-');
  // The engine's changed fields, else those examctl knows a remote send changes (docs/plan.md).
  const named =
    item.changedFields ?? item.changes?.filter((change) => change.known).map((change) => change.field) ?? [];
  const fields = named.length > 0 ? ` (${named.join(', ')})` : '';
  // A request's note: why it goes (a row sent again after a restore says so; docs/sync.md, "The plan").
  const why = item.note === undefined ? '' : `: ${item.note}`;
  switch (action) {
    // A mover (--prune-memberships): what it leaves and joins says more than `(Hierarchies)`.
    case 'prune':
      return `~ ${id} (${describeMove(item.removed ?? [], item.joined)})${why}`;
    case 'create':
      // Without an id of its own, examctl names it when the real run sends it (docs/plan.md, "Ids").
      return item.id === null
        ? `+ ${item.source.file}:${item.source.line} (id chosen when sent)${why}`
        : `+ ${id}${fields}${why}`;
    case 'update':
      return `~ ${id}${fields}${why}`;
    case 'enable':
      return `~ ${id} (enable login)`;
    case 'disable':
      return `- ${id} (disable login)${why}`;
    case 'remove':
      return `- ${id}`;
    case 'invalid':
    case 'fails':
      return `! ${id} (${ACTION_WORDS[action][0]})`;
    case 'left':
      return `= ${id} (left alone)`;
    case 'send':
      // A remote send. One with changes examctl knows is an update (plan-actions.ts, actionOf).
      return `> ${id}${why}`;
    default:
      return `= ${id}`;
  }
}

/** A dry run's plan: up to SHOWN_RECORDS lines of each action, beside the run's counts (the summary's `actions`). */
export class RunPlan {
  constructor(
    /** Once an item carried an action; from the start when the run decides from the sync memory. */
    public planned = false,
  ) {}
  private readonly sections = new Map<PlanAction, string[]>();

  add(item: ReportItem): void {
    // A line only while its list has room (millions of rows wrote one each); the counts are the summary's.
    const action = itemAction(item);
    if (action === 'skipped') return;
    if (item.action !== undefined || action === 'prune') this.planned = true;
    let shown = this.sections.get(action);
    if (shown === undefined) this.sections.set(action, (shown = []));
    if (shown.length < SHOWN_RECORDS) shown.push(planLine(action, item));
  }

  /** The plan block of the human summary; empty when nothing was planned (remote, or no store yet). */
  lines(actions: ActionCounts): string[] {
    if (!this.planned) return [];
    // `1 to create, 1 to update, 1 unchanged, 1 invalid` (a zero count is left out, except when all are zero).
    const { skipped: _notPlanned, ...planned } = actions;
    const lines = [`plan: ${actionWords(planned, true)}`];
    // Up to SHOWN_RECORDS records per action (docs/cli.md, "The local store").
    for (const action of SHOWN_ORDER) {
      const shown = this.sections.get(action);
      if (shown === undefined) continue;
      lines.push(...shown.map((line) => `  ${line}`));
      const more = (actions[action] ?? 0) - shown.length;
      if (more > 0) lines.push(`  ... and ${formatCount(more)} more ${ACTION_WORDS[action][0]}`);
    }
    return lines;
  }
}

/** The JSON report's `plan`: the run's counts by action in its keys (a zero left out but the first four). */
function planCounts(a: ActionCounts): PlanCounts {
  const counts: PlanCounts = {
    toCreate: a.create ?? 0,
    toUpdate: a.update ?? 0,
    unchanged: a.unchanged ?? 0,
    invalid: (a.invalid ?? 0) + (a.fails ?? 0),
  };
  for (const [key, action] of MORE_PLAN_KEYS) if ((a[action] ?? 0) > 0) counts[key] = a[action];
  return counts;
}

/**
 * What a mover loses, as the plan says it: `['leaves', 'H-A, H-B']` for the links it leaves, `['H-C:', 'no longer
 * coordinator']` for each link it keeps without a flag (the HTML page's before lines, the plan line's parts).
 */
export function movedLines(removed: readonly string[]): [label: string, words: string][] {
  const left: string[] = [];
  const revoked = new Map<string, string[]>();
  for (const entry of removed) {
    // A flag revoked is `id:word`; an id may hold `:` itself (`SCH:MATH` is a link left).
    const colon = entry.lastIndexOf(':');
    if (colon < 0 || !Object.hasOwn(HIERARCHY_CELL_FLAGS, entry.slice(colon + 1))) left.push(entry);
    else revoked.set(entry.slice(0, colon), [...(revoked.get(entry.slice(0, colon)) ?? []), entry.slice(colon + 1)]);
  }
  const lines: [string, string][] = left.length > 0 ? [['leaves', left.join(', ')]] : [];
  for (const [id, words] of revoked) lines.push([`${id}:`, `no longer ${words.join(', ')}`]);
  return lines;
}

/** The plan's words for one mover: `leaves H-A; joins H-D` or `H-A: no longer coordinator`. */
export function describeMove(removed: readonly string[], joined: readonly string[] = []): string {
  const parts = movedLines(removed).map((line) => line.join(' '));
  if (joined.length > 0) parts.push(`joins ${joined.join(', ')}`);
  return parts.join('; ');
}
