import { describe, it, expect } from 'vitest';
import { stripVTControlCharacters } from 'node:util';
import { parse } from 'csv-parse/sync';
import type { ReviewSession, ReviewSessionResult } from '../../src/domain/types.js';
import { csvRows, RESULT_COLUMNS, type TextCellOptions } from '../../src/report/review-session-csv.js';
import { resultsTable } from '../support/results-table.js';
import { csvLine } from '../../src/formats/csv-cell.js';
import { parseDateFormat } from '../../src/domain/local-time.js';
import { renderReviewSession, resultStatistics } from '../../src/terminal/review-session-view.js';
import { renderRunSummaryTable } from '../../src/terminal/run-summary-table.js';
import { colorEnabled, displayText } from '../../src/terminal/table-format.js';

/** One session's results as CSV, as `review-session show ID -o csv` writes them: the header line, then the rows. */
function reviewSessionResultsCsv(
  session: ReviewSession,
  options: { pinColumn?: boolean } = {},
  delimiter = ',',
  cells: TextCellOptions = {},
): string {
  const table = resultsTable([{ externalId: session.ExternalId, session }], options);
  return csvLine(table.header, delimiter) + csvRows(table, delimiter, cells);
}

function result(overrides: Partial<ReviewSessionResult>): ReviewSessionResult {
  return {
    CandidateExtId: 'c-1',
    ScheduleExtId: 'S-1',
    ScheduleTitle: 'Sitting',
    ScheduleGroupName: 'North campus',
    FirstName: 'Ada',
    LastName: 'Moreno',
    UserName: 'c-1',
    Email: 'ada@example.test',
    DateOfBirth: null,
    SpecialNeeds: false,
    Labels: [],
    LastSatDate: '2026-10-05T11:12:00.000Z',
    PassedStatus: 'SATISFACTORY',
    Score: 80,
    PublishedDate: '2026-10-12T08:00:00.000Z',
    IsVisited: false,
    VisitedDate: null,
    HasConflicts: false,
    Keycode: null,
    Grade: 'B',
    ...overrides,
  };
}

function session(results: ReviewSessionResult[], overrides: Partial<ReviewSession> = {}): ReviewSession {
  return {
    ExternalId: 'RS-1',
    AssessmentExtId: 'A-MATH-1',
    ScheduleExtId: 'S-1',
    Title: 'Maths October review',
    Hierarchy: { ExternalId: 'H-NORTH', FullPath: 'Root/North campus' },
    Code: 'MATH1',
    ReviewPeriodMode: 'TIME_SPAN',
    StartDate: '2026-10-12T08:00:00.000Z',
    EndDate: '2026-10-26T18:00:00.000Z',
    NumOfCandidates: results.length,
    Status: 'ACTIVE',
    Owner: 'scheduler',
    IsArchived: false,
    UseKeycode: false,
    ResultsOptions: { ShowSummary: true, ShowDetailed: false, Feedback: 'ON_QUESTIONS' },
    OverviewOptions: { ShowGrade: true, ShowPercentageToPass: false, ShowResultOutcome: true },
    NavigationType: 'ORIGINAL_FORM',
    UseLockDownBrowser: false,
    UsePin: true,
    Pin: '4821',
    Results: results,
    ...overrides,
  };
}

/** The table's text row whose first cell is `label`, with borders and padding collapsed. */
function rowOf(text: string, label: string): string {
  const line = text.split('\n').find((entry) => entry.startsWith(`│ ${label} `));
  if (line === undefined) throw new Error(`no row ${label} in\n${text}`);
  return line.replace(/│/g, '|').replace(/\s+/g, ' ').trim();
}

describe('renderReviewSession', () => {
  const results = [
    result({ CandidateExtId: 'c-1', PassedStatus: 'SATISFACTORY', Score: 90 }),
    result({
      CandidateExtId: 'c-2',
      FirstName: 'Ben',
      LastName: 'Okafor',
      PassedStatus: 'NOT_SATISFACTORY',
      Score: 40,
      IsVisited: true,
      VisitedDate: '2026-10-13T18:21:00.000Z',
    }),
    result({ CandidateExtId: 'c-3', PassedStatus: 'SATISFACTORY', Score: 75.5 }),
    result({ CandidateExtId: 'c-4', PassedStatus: 'NOT_SUBMITTED', Score: null, PublishedDate: null, Grade: null }),
  ];
  const text = renderReviewSession(session(results));

  it('prints the header block with the session facts', () => {
    expect(text).toContain('Maths October review');
    expect(rowOf(text, 'Code')).toContain('MATH1');
    expect(rowOf(text, 'Status')).toContain('ACTIVE');
    expect(rowOf(text, 'Review mode')).toContain('time span');
    expect(rowOf(text, 'Review window')).toContain('2026-10-12 08:00 to 2026-10-26 18:00');
    // Without a zone given, UTC; the Times line says which (the command gives the computer's zone).
    expect(rowOf(text, 'Times')).toBe('| Times | UTC |');
    expect(rowOf(text, 'Owner')).toContain('scheduler');
    expect(rowOf(text, 'Hierarchy')).toContain('Root/North campus (H-NORTH)');
    expect(rowOf(text, 'Candidates')).toContain('4');
  });

  it('lists the options as readable yes/no pairs', () => {
    expect(rowOf(text, 'Results options')).toContain('summary: yes, detailed: no, feedback: on questions');
    expect(rowOf(text, 'Overview options')).toContain('grade: yes, percentage to pass: no,');
    expect(text).toContain('result outcome: yes');
  });

  it('never shows the PIN value', () => {
    expect(text).toContain('PIN: used');
    expect(text).not.toContain('4821');
  });

  it('prints one results row per candidate with name, status, score, grade, published and visited', () => {
    // The zone of the times is said once, in the header block's Times line.
    expect(text).toMatch(/Published\s+│ Visited\s+│/);
    expect(rowOf(text, 'c-2')).toBe(
      '| c-2 | Ben Okafor | NOT_SATISFACTORY | 40 | B | 2026-10-12 08:00 | 2026-10-13 18:21 |',
    );
    expect(rowOf(text, 'c-4')).toMatch(/\| c-4 \| Ada Moreno \| NOT_SUBMITTED \| \| \| no \| no \|$/);
    expect(text).toContain('Results (4)');
  });

  it('shows every time in the zone it is given, by a --date-format, and names both in the Times line', () => {
    const format = parseDateFormat('DD/MM/YYYY HH:mm');
    if (!format.ok) throw new Error(format.message);
    const london = renderReviewSession(session(results), {
      times: { zone: 'Europe/London', format: format.format },
      timesFrom: '--timezone',
    });
    expect(rowOf(london, 'Times')).toBe('| Times | Europe/London (--timezone), DD/MM/YYYY HH:mm |');
    // 08:00 UTC on 12 October is 09:00 in London (BST); 26 October is after the clocks went back (GMT).
    expect(rowOf(london, 'Review window')).toContain('12/10/2026 09:00 to 26/10/2026 18:00');
    expect(rowOf(london, 'c-2')).toBe(
      '| c-2 | Ben Okafor | NOT_SATISFACTORY | 40 | B | 12/10/2026 09:00 | 13/10/2026 19:21 |',
    );
  });

  it('counts every PassedStatus, zeros included, and gives the mean of numeric scores', () => {
    expect(rowOf(text, 'SATISFACTORY')).toBe('| SATISFACTORY | 2 |');
    expect(rowOf(text, 'NOT_SATISFACTORY')).toBe('| NOT_SATISFACTORY | 1 |');
    expect(rowOf(text, 'NOT_SUBMITTED')).toBe('| NOT_SUBMITTED | 1 |');
    expect(rowOf(text, 'VOIDED')).toBe('| VOIDED | 0 |');
    // (90 + 40 + 75.5) / 3 = 68.5; the null score is left out.
    expect(rowOf(text, 'Mean score')).toBe('| Mean score | 68.5 (3 scored) |');
  });

  it('says n/a for the mean when no result has a score, and handles an empty session', () => {
    const empty = renderReviewSession(
      session([], { ReviewPeriodMode: 'ALWAYS', StartDate: null, EndDate: null, Hierarchy: null, ScheduleExtId: null }),
    );
    expect(rowOf(empty, 'Mean score')).toBe('| Mean score | n/a |');
    expect(empty).toContain('(no results)');
    expect(rowOf(empty, 'Review window')).toContain('always open');
    expect(rowOf(empty, 'Hierarchy')).toContain('none (based on an assessment)');
    for (const status of ['SATISFACTORY', 'NOT_SATISFACTORY', 'NOT_SUBMITTED', 'VOIDED']) {
      expect(rowOf(empty, status)).toBe(`| ${status} | 0 |`);
    }
  });

  it('fits a narrow terminal: every line within the width, long cells wrapped inside their column, nothing lost', () => {
    const wide = renderReviewSession(session(results), { width: 200 });
    expect(wide).toBe(text);
    for (const width of [80, 72]) {
      const narrow = renderReviewSession(session(results), { width, color: true });
      const lines = stripVTControlCharacters(narrow).split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      // Each result is still there: its id, and its status rejoined from the wrapped lines.
      const body = lines.join('\n');
      for (const id of ['c-1', 'c-2', 'c-3', 'c-4']) expect(body).toMatch(new RegExp(`│ ${id}\\s`));
      const statusCells = lines
        .filter((line) => /^│ c-2\s/.test(line) || lines[lines.indexOf(line) - 1]?.startsWith('│ c-2 '))
        .map((line) => line.split('│')[3]!.trim());
      expect(statusCells.join('')).toBe('NOT_SATISFACTORY');
      expect(body).toContain('Maths October review');
    }
  });

  it('below the narrowest table (50 and 40 columns): one block per result, every line within the width, nothing lost', () => {
    for (const width of [50, 40]) {
      const narrow = renderReviewSession(session(results), { width, color: true });
      const lines = stripVTControlCharacters(narrow).split('\n');
      for (const line of lines) expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      const body = lines.join('\n');
      for (const id of ['c-1', 'c-2', 'c-3', 'c-4']) expect(body).toMatch(new RegExp(`^${id}  `, 'm'));
      expect(body).toMatch(/^ {2}Status +NOT_SATISFACTORY$/m);
    }
  });

  it('colours only when asked', () => {
    expect(text).toBe(stripVTControlCharacters(text));
    const coloured = renderReviewSession(session(results), { color: true });
    expect(coloured).not.toBe(stripVTControlCharacters(coloured));
    expect(stripVTControlCharacters(coloured)).toContain('NOT_SATISFACTORY');
  });

  it('neutralises terminal control sequences coming from the service', () => {
    const hostile = renderReviewSession(session([result({ FirstName: '\u001b[2J\u001b]0;pwned\u0007Eve' })]));
    expect(hostile).not.toContain('\u001b');
    expect(hostile).not.toContain('\u0007');
    expect(hostile).toContain('Eve');
  });

  it('counts statuses a newer server invents under "other" instead of dropping them', () => {
    const statistics = resultStatistics([
      result({ PassedStatus: 'PENDING' as never }),
      result({ Score: '12.5' as never }),
    ]);
    expect(statistics.other).toBe(1);
    expect(statistics.counts.SATISFACTORY).toBe(1);
    expect(statistics.meanScore).toBe((80 + 12.5) / 2);
  });
});

describe('reviewSessionResultsCsv', () => {
  it('has a header of every result field, then extra fields in first-seen order', () => {
    const csv = reviewSessionResultsCsv(session([result({ Extra: 'x' } as never)]));
    const [headerRow] = parse(csv) as string[][];
    expect(headerRow).toEqual([...RESULT_COLUMNS, 'Extra']);
  });

  it('writes CRLF rows, joins lists with |, leaves nulls empty and round-trips quoted cells', () => {
    const csv = reviewSessionResultsCsv(
      session([
        result({ LastName: 'O"Brien, Jr', Labels: ['math', 'resit'], Grade: null, ScheduleTitle: 'line1\nline2' }),
      ]),
    );
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain('"O""Brien, Jr"');
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.LastName).toBe('O"Brien, Jr');
    expect(row.Labels).toBe('math|resit');
    expect(row.Grade).toBe('');
    expect(row.ScheduleTitle).toBe('line1\nline2');
    expect(row.Score).toBe('80');
    expect(row.SpecialNeeds).toBe('false');
  });

  it('neutralises cells a spreadsheet would run as a formula', () => {
    const csv = reviewSessionResultsCsv(
      session([
        result({
          FirstName: '=HYPERLINK("http://evil")',
          LastName: '+1',
          UserName: '@SUM(A1)',
          Email: '-2+3',
          Grade: '\tx',
          Keycode: '\rk',
        }),
      ]),
    );
    const row = (parse(csv, { columns: true }) as Array<Record<string, string>>)[0]!;
    expect(row.FirstName).toBe(`'=HYPERLINK("http://evil")`);
    expect(row.LastName).toBe(`'+1`);
    expect(row.UserName).toBe(`'@SUM(A1)`);
    expect(row.Email).toBe(`'-2+3`);
    expect(row.Grade).toBe(`'\tx`);
    expect(row.Keycode).toBe(`'\rk`);
  });

  it('writes DateOfBirth as a date, and times in UTC as sent unless a zone or format is asked for', () => {
    const one = session([
      result({ DateOfBirth: '2004-03-17T00:00:00.000Z', VisitedDate: '2026-10-13T18:21:00.000Z', IsVisited: true }),
    ]);
    const sent = (parse(reviewSessionResultsCsv(one), { columns: true }) as Array<Record<string, string>>)[0]!;
    expect([sent.DateOfBirth, sent.PublishedDate, sent.VisitedDate]).toEqual([
      '2004-03-17',
      '2026-10-12T08:00:00.000Z',
      '2026-10-13T18:21:00.000Z',
    ]);
    const london = (
      parse(reviewSessionResultsCsv(one, {}, ',', { times: { zone: 'Europe/London' } }), { columns: true }) as Array<
        Record<string, string>
      >
    )[0]!;
    expect([london.DateOfBirth, london.PublishedDate, london.VisitedDate]).toEqual([
      '2004-03-17',
      '2026-10-12T09:00:00+01:00',
      '2026-10-13T19:21:00+01:00',
    ]);
    const format = parseDateFormat('DD/MM/YYYY');
    if (!format.ok) throw new Error(format.message);
    const dated = (
      parse(reviewSessionResultsCsv(one, {}, ',', { times: { zone: 'Europe/London', format: format.format } }), {
        columns: true,
      }) as Array<Record<string, string>>
    )[0]!;
    // A format without a time: the date, then HH:mm, as --date-format reads it back.
    expect([dated.DateOfBirth, dated.PublishedDate, dated.VisitedDate]).toEqual([
      '17/03/2004',
      '12/10/2026 09:00',
      '13/10/2026 19:21',
    ]);
  });

  it('writes a value typed as a number as the number, a negative one too, in the decimal separator asked; a number sent as text stays guarded', () => {
    const negative = (
      parse(reviewSessionResultsCsv(session([result({ Score: -5 })])), { columns: true }) as Array<
        Record<string, string>
      >
    )[0]!;
    expect(negative.Score).toBe('-5');
    const fraction = session([result({ Score: -87.5 })]);
    expect(reviewSessionResultsCsv(fraction, {}, ';')).toContain(';-87.5;');
    expect(reviewSessionResultsCsv(fraction, {}, ';', { decimalComma: true })).toContain(';"-87,5";');
    expect(reviewSessionResultsCsv(fraction, {}, '\t', { decimalComma: true })).toContain('\t"-87,5"\t');
    // Text is guarded whatever it looks like: a lenient server's "-5", a name starting with -.
    const text = (
      parse(reviewSessionResultsCsv(session([result({ Score: '-5' as never, LastName: '-5' })])), {
        columns: true,
      }) as Array<Record<string, string>>
    )[0]!;
    expect([text.Score, text.LastName]).toEqual([`'-5`, `'-5`]);
  });

  it("keeps a point as the decimal separator with ';' unless a comma is asked for", () => {
    const one = session([result({ Score: 87.5 })]);
    expect(reviewSessionResultsCsv(one, {}, ';')).toContain(';87.5;');
    expect(reviewSessionResultsCsv(one, {}, ';', { decimalComma: true })).toContain(';"87,5";');
  });

  it('gives only the header for a session without results', () => {
    expect(reviewSessionResultsCsv(session([]))).toBe(`${RESULT_COLUMNS.join(',')}\r\n`);
  });
});

describe('renderRunSummaryTable', () => {
  it('shows every count under its label', () => {
    const text = renderRunSummaryTable({ total: 10, ok: 6, partial: 1, failed: 2, skipped: 1 });
    const lines = text.split('\n').map((line) =>
      line
        .replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ')
        .trim()
        .split(/\s+/),
    );
    expect(lines).toContainEqual(['total', 'ok', 'partial', 'failed', 'skipped']);
    expect(lines).toContainEqual(['10', '6', '1', '2', '1']);
  });

  it('says valid/invalid in a dry run', () => {
    const text = renderRunSummaryTable({ total: 2, ok: 1, partial: 0, failed: 1, skipped: 0 }, { dryRun: true });
    expect(text).toContain('valid');
    expect(text).toContain('invalid');
    expect(text).not.toMatch(/\bok\b/);
  });
});

describe('colour and cell helpers', () => {
  it('colours a terminal unless NO_COLOR or TERM=dumb; FORCE_COLOR wins over a pipe', () => {
    expect(colorEnabled({ isTTY: true, env: {} })).toBe(true);
    expect(colorEnabled({ isTTY: false, env: {} })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { TERM: 'dumb' } })).toBe(false);
    expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: '0' } })).toBe(false);
  });

  it('shows a newline as \\n, a tab as a space, and replaces control characters', () => {
    expect(displayText('a\nb\tc\u0000d')).toBe('a\\nb c?d');
    // A bidi override from the service would reorder the rest of the row as the terminal shows it.
    expect(displayText('gpj.\u202eexe \u2066x\u2069 \u202ay\u202c')).toBe('gpj.?exe ?x? ?y?');
    expect(displayText('Zoë Ødegård \u05e9\u05dc\u05d5\u05dd')).toBe('Zoë Ødegård \u05e9\u05dc\u05d5\u05dd');
    expect(displayText(['x', 1, true])).toBe('x, 1, true');
    expect(displayText(null)).toBe('');
  });
});
