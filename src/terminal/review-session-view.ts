/**
 * The human view of a review session (`review-session show -o table`): a header block, the Results table
 * and the statistics. The CSV export is review-session-csv.ts.
 */
import Table from 'cli-table3';
import {
  OVERVIEW_OPTIONS_FIELDS,
  PASSED_STATUSES,
  RESULTS_OPTIONS_FIELDS,
  REVIEW_SESSION_FIELDS,
  type AnswerFields,
} from '../domain/answer-fields.js';
import type { PassedStatus, ReviewSession, ReviewSessionResult } from '../domain/types.js';
import { displayText, head, paint, tableOptions, type Colour } from './table-format.js';
import { fitToWidth, wrapList, wrapText, type FitPlan } from './text-layout.js';
import { renderRecordTable, renderedWidth } from './record-table.js';
import { instantOf, instantText, type OutputTimes } from '../report/output-times.js';

interface RenderOptions {
  /** ANSI colour for a terminal; decide it with `colorEnabled` from table-format.ts. */
  color?: boolean;
  /** The terminal's width: given, tables fit it (long cells wrap in their column) rather than wrap past the edge. */
  width?: number;
  /** `--show-pin`: the Access line names the PIN instead of "PIN: used". */
  showPin?: boolean;
  /** The zone (and `--date-format`) of every time shown; default UTC. */
  times?: OutputTimes;
  /** Why that zone, for the header's Times line (`this computer's zone`, `--timezone`). */
  timesFrom?: string;
}

const STATUS_COLOUR: Record<PassedStatus, Colour> = {
  SATISFACTORY: 'green',
  NOT_SATISFACTORY: 'red',
  NOT_SUBMITTED: 'yellow',
  VOIDED: 'gray',
};

/** The API's modes (domain/answer-fields.ts), said in words: `TIME_SPAN` -> `time span`. */
const MODES: ReadonlySet<string> = new Set(
  [
    REVIEW_SESSION_FIELDS.ReviewPeriodMode,
    REVIEW_SESSION_FIELDS.NavigationType,
    RESULTS_OPTIONS_FIELDS.Feedback,
  ].flatMap((field) => field.values),
);

const OPTION_LINE_WIDTH = 60;

/** An RFC 3339 instant to the minute in the chosen zone (the Times line names it); anything else as it was sent. */
function formatInstant(value: unknown, times: OutputTimes): string {
  const instant = instantOf(value);
  return instant === undefined ? displayText(value) : instantText(instant, times, 'minutes');
}

function yesNo(value: unknown): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (value === null || value === undefined) return 'not set';
  if (typeof value === 'string' && MODES.has(value)) {
    return value === 'NO_FEEDBACK' ? 'none' : value.toLowerCase().replaceAll('_', ' ');
  }
  return displayText(value);
}

/** `ShowPercentageToPass` -> `show percentage to pass`, for option keys the spec does not name. */
function humanise(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The options the API names (domain/answer-fields.ts) first, in its order, without "show": `ShowGrade` -> `grade`. */
function optionsList(options: unknown, fields: AnswerFields, width: number): string {
  if (options === null || options === undefined) return 'not set';
  if (typeof options !== 'object' || Array.isArray(options)) return displayText(options);
  const record = options as Record<string, unknown>;
  const known = Object.keys(fields).filter((key) => key in record);
  const extra = Object.keys(record).filter((key) => !(key in fields));
  const label = (key: string): string =>
    key in fields
      ? humanise(key)
          .replace(/^show /, '')
          .replace(/^score report with /, 'score by ')
      : humanise(displayText(key));
  const parts = [...known, ...extra].map((key) => `${label(key)}: ${yesNo(record[key])}`);
  if (parts.length === 0) return 'none given';
  return wrapList(parts, width);
}

function reviewWindow(session: ReviewSession, times: OutputTimes): string {
  const start = session.StartDate ? formatInstant(session.StartDate, times) : '';
  const end = session.EndDate ? formatInstant(session.EndDate, times) : '';
  if (session.ReviewPeriodMode === 'ALWAYS' && start === '' && end === '') return 'always open';
  if (start === '' && end === '') return 'not set';
  return `${start || 'open'} to ${end || 'open'}`;
}

function hierarchyLine(session: ReviewSession): string {
  const hierarchy = session.Hierarchy;
  if (hierarchy === null || hierarchy === undefined)
    return session.ScheduleExtId ? 'not given' : 'none (based on an assessment)';
  const path = displayText(hierarchy.FullPath);
  const id = displayText(hierarchy.ExternalId);
  return path === '' ? id : `${path} (${id})`;
}

function candidatesLine(session: ReviewSession): string {
  const shown = session.Results.length;
  const declared = typeof session.NumOfCandidates === 'number' ? session.NumOfCandidates : undefined;
  if (declared === undefined) return `${shown}`;
  return declared === shown ? `${declared}` : `${declared} (${shown} results listed)`;
}

function accessLine(session: ReviewSession, width: number, showPin: boolean): string {
  const parts: string[] = [];
  if (session.NavigationType) parts.push(`navigation: ${yesNo(session.NavigationType)}`);
  if (session.UseLockDownBrowser !== undefined) parts.push(`lockdown browser: ${yesNo(session.UseLockDownBrowser)}`);
  if (session.UseKeycode !== undefined) parts.push(`keycode: ${yesNo(session.UseKeycode)}`);
  // The PIN value stays out of the view (a credential for candidates) unless --show-pin asked for it.
  if (showPin && typeof session.Pin === 'string') parts.push(`PIN: ${displayText(session.Pin)}`);
  else if (session.UsePin !== undefined) parts.push(`PIN: ${session.UsePin === true ? 'used' : 'not used'}`);
  return parts.length === 0 ? 'not given' : wrapList(parts, width);
}

/** Width of the header block's label column, borders and padding included. */
const LABEL_COLUMN = 18 + 2;

function headerBlock(
  session: ReviewSession,
  color: boolean,
  width: number | undefined,
  showPin: boolean,
  times: OutputTimes,
  timesFrom: string | undefined,
): string {
  // Value column: what is left of the terminal after the label column and three borders.
  const valueWidth = width === undefined ? undefined : Math.max(12, width - LABEL_COLUMN - 3);
  const listWidth = Math.min(OPTION_LINE_WIDTH, valueWidth === undefined ? OPTION_LINE_WIDTH : valueWidth - 2);
  const rows: Array<[string, string]> = [
    ['Review session', displayText(session.ExternalId)],
    ['Title', displayText(session.Title)],
    ['Code', displayText(session.Code)],
    ['Assessment', displayText(session.AssessmentExtId)],
    ['Schedule', session.ScheduleExtId ? displayText(session.ScheduleExtId) : 'none (based on an assessment)'],
    [
      'Status',
      `${session.Status ? displayText(session.Status) : 'unknown'}${session.IsArchived === true ? ' (archived)' : ''}`,
    ],
    ['Review mode', session.ReviewPeriodMode ? yesNo(session.ReviewPeriodMode) : 'not set'],
    ['Review window', reviewWindow(session, times)],
    ['Results options', optionsList(session.ResultsOptions, RESULTS_OPTIONS_FIELDS, listWidth)],
    ['Overview options', optionsList(session.OverviewOptions, OVERVIEW_OPTIONS_FIELDS, listWidth)],
    ['Access', accessLine(session, listWidth, showPin)],
    ['Owner', displayText(session.Owner)],
    ['Hierarchy', hierarchyLine(session)],
    ['Candidates', candidatesLine(session)],
    [
      'Times',
      `${times.zone}${timesFrom === undefined ? '' : ` (${timesFrom})`}${times.format === undefined ? '' : `, ${times.format.text}`}`,
    ],
  ];
  const table = new Table(tableOptions());
  // A long title wraps inside its cell rather than past the edge of the terminal.
  for (const [label, value] of rows)
    table.push({ [paint(label, 'bold', color)]: valueWidth === undefined ? value : wrapText(value, valueWidth - 2) });
  return table.toString();
}

function formatScore(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function visitedCell(result: ReviewSessionResult, times: OutputTimes): string {
  // The header's Times line names the zone: a visited result shows when, or "yes" when the date is unknown.
  if (result.IsVisited === true) return result.VisitedDate ? formatInstant(result.VisitedDate, times) : 'yes';
  if (result.IsVisited === false) return 'no';
  return '';
}

/** A PassedStatus (or a line of it, when wrapped) in its colour; `status` picks the colour. */
function statusCell(text: unknown, color: boolean, status: unknown = text): string {
  const colour = STATUS_COLOUR[status as PassedStatus];
  return colour === undefined ? displayText(text) : paint(displayText(text), colour, color);
}

const RESULT_HEADS = ['Candidate', 'Name', 'Status', 'Score', 'Grade', 'Published', 'Visited'];
/** The Results table on a narrow terminal (docs/human.md, "Tables"); the short Score and Grade never cut. */
const RESULTS_FIT: FitPlan = {
  naturalBreaks: [
    { column: 6, to: 10 },
    { column: 5, to: 10 },
    { column: 2, to: 12 },
    { column: 1, to: 0 },
  ],
  wrappable: [0, 1, 2, 5, 6],
  minWrapped: 6,
};

function resultsTable(
  results: readonly ReviewSessionResult[],
  color: boolean,
  width: number | undefined,
  times: OutputTimes,
): string {
  const rows = results.map((result) => {
    const score = numericScore(result.Score);
    return [
      displayText(result.CandidateExtId),
      [displayText(result.FirstName), displayText(result.LastName)].filter((part) => part !== '').join(' '),
      displayText(result.PassedStatus),
      score === undefined ? displayText(result.Score) : formatScore(score),
      displayText(result.Grade),
      result.PublishedDate ? formatInstant(result.PublishedDate, times) : 'no',
      visitedCell(result, times),
    ];
  });
  const fitted = fitToWidth([RESULT_HEADS, ...rows], width, RESULTS_FIT);
  const [heads, ...cells] = fitted.rows;
  const options = tableOptions({
    head: head(heads!, color),
    colAligns: ['left', 'left', 'left', 'right', 'left', 'left', 'left'],
  });
  const table = new Table(fitted.tight ? { ...options, style: { ...options.style, 'padding-right': 0 } } : options);
  for (const [index, row] of cells.entries()) {
    const status = results[index]!.PassedStatus;
    table.push(
      row.map((cell, column) =>
        column === 2
          ? cell
              .split('\n')
              .map((line) => statusCell(line, color, status))
              .join('\n')
          : cell,
      ),
    );
  }
  const text = table.toString();
  // Narrower than the table can be squeezed (about 55 columns): one block per result, as other record lists do.
  if (width !== undefined && renderedWidth(text) > width) {
    return renderRecordTable(RESULT_HEADS, rows, { width, color, headingColumns: 2 }).trimEnd();
  }
  return text;
}

function statisticsTable(statistics: ResultStatistics, color: boolean): string {
  const table = new Table(
    tableOptions({ head: head(['Passed status', 'Results'], color), colAligns: ['left', 'right'] }),
  );
  for (const status of PASSED_STATUSES) table.push([statusCell(status, color), String(statistics.counts[status])]);
  if (statistics.other > 0) table.push(['other', String(statistics.other)]);
  const mean =
    statistics.meanScore === null ? 'n/a' : `${formatScore(statistics.meanScore)} (${statistics.scored} scored)`;
  table.push([paint('Mean score', 'bold', color), mean]);
  return table.toString();
}

/** The review session as a header block, the Results table, counts per PassedStatus and the mean score. */
export function renderReviewSession(session: ReviewSession, options: RenderOptions = {}): string {
  const color = options.color === true;
  const results = session.Results ?? [];
  const width = options.width !== undefined && options.width > 0 ? options.width : undefined;
  const times: OutputTimes = options.times ?? { zone: 'UTC' };
  const parts = [
    headerBlock({ ...session, Results: results }, color, width, options.showPin === true, times, options.timesFrom),
    '',
    paint(`Results (${results.length})`, 'bold', color),
    results.length === 0 ? '(no results)' : resultsTable(results, color, width, times),
    '',
    statisticsTable(resultStatistics(results), color),
  ];
  return `${parts.join('\n')}\n`;
}

/** A score as a number, or undefined. A numeric string is accepted from a lenient server. */
function numericScore(score: unknown): number | undefined {
  const value =
    typeof score === 'number' ? score : typeof score === 'string' && score.trim() !== '' ? Number(score) : Number.NaN;
  return Number.isFinite(value) ? value : undefined;
}

type ResultStatistics = ReturnType<typeof resultStatistics>;

/** Results per PassedStatus (zeros too; `other`: a state beyond the four), the mean of numeric scores or null. */
export function resultStatistics(results: readonly ReviewSessionResult[]) {
  const counts: Record<PassedStatus, number> = { SATISFACTORY: 0, NOT_SATISFACTORY: 0, NOT_SUBMITTED: 0, VOIDED: 0 };
  let other = 0;
  let sum = 0;
  let scored = 0;
  for (const result of results) {
    const status = result.PassedStatus;
    if (Object.hasOwn(counts, status)) counts[status] += 1;
    else other += 1;
    const score = numericScore(result.Score);
    if (score !== undefined) {
      sum += score;
      scored += 1;
    }
  }
  return { counts, other, meanScore: scored === 0 ? null : sum / scored, scored };
}
