import { isKnownTimeZone } from '../domain/local-time.js';
import type { ReviewSession } from '../domain/types.js';
import { AnswerUnreadableError, TransientTargetError, UsageError } from '../system/errors.js';
import { describeErrors, errorsOf } from '../api/envelope-errors.js';
import { pinsRedacted } from '../api/redaction.js';
import type { IntegrationApi } from '../port/integration-api.js';
import { sessionShapeProblem } from '../domain/review-session.js';
import { formatCount } from '../formats/number-format.js';
import type { OutputTimes } from '../report/output-times.js';
import type { TimeSettings } from '../domain/local-time.js';
import { resolveSettings, settingText, type SettingFlags } from '../context/settings.js';
import type { TablesWritten } from '../report/xlsx-report-writer.js';
import { cutCellsWords } from '../report/xlsx-workbook.js';
import type { CommandDeps } from '../context/command-deps.js';
import { say } from '../formats/terminal-text.js';
import * as cells from '../report/review-session-csv.js';
import { displayNameOf, inputPathOf, refuseTooLong, sayOnce, type SheetFlagOptions } from './command-input.js';
import type { Env } from '../system/env-values.js';

/*
 * `examctl review-session show`'s decisions (docs/cli.md, "review-session show"): the output
 * settings, the ids asked for, each session read, and each output's view (the table, the workbook, what was cut).
 */

/** The flags `outputSettings` reads. */
type OutputFlags = Pick<SettingFlags, 'timezone' | 'dateFormat' | 'delimiter' | 'decimalSeparator'>;

/** The zone of this computer: TZ when it names a zone, else what Intl says, else UTC. */
export function systemTimeZone(env: Env): string {
  const tz = env['TZ']?.replace(/^:/, '');
  if (tz !== undefined && tz !== '' && isKnownTimeZone(tz)) return tz;
  const resolved = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return typeof resolved === 'string' && isKnownTimeZone(resolved) ? resolved : 'UTC';
}

/**
 * The output settings: each flag, else the profile's key (docs/cli.md, "review-session show"):
 * the admin's zone and date format serve both ways, so a profile that reads the exports in
 * Europe/London shows the results there too.
 */
export async function outputSettings(
  flags: OutputFlags,
  globals: Pick<SettingFlags, 'profile' | 'baseUrl' | 'target' | 'store'>,
  deps: CommandDeps,
) {
  const { values, profile } = await resolveSettings({ ...globals, ...flags }, deps);
  return {
    times: {
      timezone: settingText(values.timezone, 'timezone'),
      dateFormat: settingText(values.dateFormat, 'dateFormat'),
    },
    delimiter: values.delimiter?.value,
    decimalSeparator: values.decimalSeparator?.value,
    profile: profile?.name,
  };
}

/** The ids asked for: the arguments, then the --file's (docs/input-formats.md, "Id list files"). */
export async function idsOf(
  options: { externalIds?: string[]; file?: string } & SheetFlagOptions,
  deps: CommandDeps,
): Promise<string[]> {
  const ids = [...(options.externalIds ?? [])];
  for (const id of ids) refuseTooLong(id, 'review-session show');
  if (options.file !== undefined) {
    const { readIdList } = await import('../input/id-list.js');
    const listed = await readIdList(inputPathOf(options.file, deps), {
      displayName: displayNameOf(options.file),
      idColumn: 'ExternalId',
      sheet: options.sheet,
      hiddenRows: options.hiddenRows,
      notice: (text) => sayOnce(deps, text),
    });
    if (listed.length === 0) throw new UsageError(`${displayNameOf(options.file)}: no review session id in the file`);
    for (const entry of listed) refuseTooLong(entry.id, `${entry.source.file}:${entry.source.line}`);
    ids.push(...listed.map((entry) => entry.id));
  } else if (options.sheet !== undefined)
    throw new UsageError('--sheet is for --file: the worksheet of an .xlsx id list');
  else if (options.hiddenRows !== undefined)
    throw new UsageError('--hidden-rows is for --file: the hidden rows of an .xlsx id list');
  if (ids.length === 0)
    throw new UsageError('review-session show: give a review session id (or several, or --file ids.csv)');
  return ids;
}

/** One session as the table shows it (docs/human.md), fitted to stdout's width. */
export async function tableView(
  session: ReviewSession,
  options: { showPin?: boolean },
  times: OutputTimes,
  settings: { times: TimeSettings; profile?: string },
  deps: CommandDeps,
): Promise<string> {
  const { renderReviewSession } = await import('../terminal/review-session-view.js');
  const { colorEnabled } = await import('../terminal/table-format.js');
  // The table goes to stdout: colour follows stdout (`show X | less` gets none), not stdin.
  const width = deps.stdoutIsTTY ? deps.stdoutColumns : undefined;
  const color = colorEnabled({ isTTY: deps.stdoutIsTTY ?? false, env: deps.env });
  const timesFrom = timesFromOf(settings);
  return renderReviewSession(session, { color, showPin: options.showPin === true, times, timesFrom, width });
}

/** Where the times' zone came from, as the table's Times line and a workbook's header notes say it. */
export function timesFromOf(settings: { times: TimeSettings; profile?: string }): string {
  const zoneFrom = settings.times.timezone?.origin;
  if (zoneFrom === undefined) return "this computer's zone; --timezone to change";
  return zoneFrom.startsWith('profile ') ? `profile ${settings.profile ?? ''}` : zoneFrom;
}

/**
 * The table as a typed workbook on stdout (or --out), its times as docs/cli.md, "Times" says.
 * The rows go into the sheet a session at a time (`eachTable`).
 */
export async function writeXlsx(
  header: string[],
  rowCount: number,
  eachTable: (write: (table: cells.ResultsTable) => void | Promise<void>) => Promise<void>,
  times: OutputTimes,
  timesFrom: string,
  ids: readonly string[],
  deps: CommandDeps,
): Promise<TablesWritten> {
  const { sheetFormats, sheetRows, timeZoneNotes, TIME_ZONE_COLUMN } = cells;
  const [{ TablesWorkbook }, { writeWorkbookToStdout }, { excelDateFormats }] = await Promise.all([
    import('../report/xlsx-report-writer.js'),
    import('../terminal/workbook-stdout.js'),
    import('../report/output-times.js'),
  ]);
  let written: TablesWritten | undefined;
  const redirect = `examctl review-session show ${ids.length === 1 ? ids[0] : '--file ids.csv'} -o xlsx > results.xlsx`;
  await writeWorkbookToStdout(deps, redirect, async (stream) => {
    const workbook = new TablesWorkbook(stream, excelDateFormats(times.format), { [TIME_ZONE_COLUMN]: times.zone });
    const table = { header, rows: [] };
    const sheet = await workbook.sheet(
      {
        name: 'Results',
        header,
        formats: sheetFormats(table),
        headerNotes: timeZoneNotes(table, times.zone, timesFrom),
      },
      rowCount,
    );
    await eachTable(async (rows) => {
      for (const row of sheetRows(rows, times.zone)) await sheet.row(row);
    });
    await sheet.end();
    written = await workbook.finish();
  });
  return written as TablesWritten;
}

/** What did not fit Excel's limits, said on stderr: the workbook holds the markers. */
export async function warnCut(cut: TablesWritten, deps: CommandDeps): Promise<void> {
  const lines: string[] = [];
  if (cut.cutCells.count > 0) lines.push(cutCellsWords(cut.cutCells, " of the service's answer"));
  for (const [count, what, where] of [
    [cut.cutColumns, 'columns', 'column'],
    [cut.cutRows, 'results', 'row'],
  ] as const) {
    if (count > 0)
      lines.push(
        `the service's answer has more ${what} than a sheet holds: the last ${formatCount(count)} were cut, the sheet's last ${where} says how many; -o csv or ndjson writes them all`,
      );
  }
  for (const line of lines) await say(deps, `warning: ${line}`);
}

/**
 * One session's outcome: its Content (PIN withheld unless `showPin`), or why it could not be
 * read (1101; of several: no answer after retries, one not the API's). Any other target failure ends the command.
 */
export async function readSession(
  api: IntegrationApi,
  externalId: string,
  showPin: boolean,
  several: boolean,
  redacted: { fields: number },
): Promise<cells.SessionOutcome> {
  try {
    const result = await api.getReviewSession(externalId);
    if (!result.envelope.Success)
      return {
        externalId,
        error: describeErrors(result.envelope) || `HTTP ${result.status}`,
        errors: errorsOf(result.envelope),
      };
    const sent = result.envelope.Content as ReviewSession;
    const shape = sessionShapeProblem(sent);
    if (shape !== undefined)
      throw new AnswerUnreadableError(`the service answered ${result.status}, not the API's answer: ${shape}`);
    return { externalId, session: showPin ? sent : pinsRedacted(sent, cells.withPinWithheld(sent), redacted) };
  } catch (error) {
    if (several && error instanceof TransientTargetError) return { externalId, error: error.message };
    throw error;
  }
}
