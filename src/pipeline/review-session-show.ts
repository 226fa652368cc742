import { isKnownTimeZone } from '../domain/local-time.js';
import type { ReviewSession } from '../domain/types.js';
import { AnswerUnreadableError, TransientTargetError, UsageError } from '../system/errors.js';
import { describeErrors, errorsOf } from '../api/envelope-errors.js';
import { pinsRedacted } from '../api/redaction.js';
import type { IntegrationApi } from '../port/integration-api.js';
import { sessionShapeProblem } from '../domain/review-session.js';
import { formatCount } from '../formats/number-format.js';
import { readOutputTimes, type OutputTimes } from '../report/output-times.js';
import { resolveSettings, settingText, type SettingFlags } from '../context/settings.js';
import type { TablesWritten } from '../report/xlsx-report-writer.js';
import { cutCellsWords } from '../report/xlsx-workbook.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import { openToRead } from '../context/target.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { describeTarget } from '../report/report-writers.js';
import { pathSegment } from '../api/url-policy.js';
import { LineSplitter, SpoolSink } from '../system/text-sink.js';
import { inOrderAhead } from '../system/in-order-ahead.js';
import { REMOTE_CONCURRENCY } from '../defaults.js';
import { say } from '../formats/terminal-text.js';
import * as cells from '../report/review-session-csv.js';
import { displayNameOf, inputPathOf, refuseTooLong, sayOnce, type SheetFlagOptions } from './command-input.js';
import type { Env } from '../system/env-values.js';

/* `examctl review-session show` (docs/cli.md, "review-session show"). */

/** `review-session show`'s own flags (src/cli/commands/review-session-show.options.ts). */
export type ShowFlags = Pick<SettingFlags, 'timezone' | 'dateFormat' | 'delimiter' | 'decimalSeparator'> &
  SheetFlagOptions & {
    externalIds?: string[];
    file?: string;
    output?: 'table' | 'json' | 'csv' | 'ndjson' | 'xlsx';
    showPin?: boolean;
    bom?: boolean;
  };

/** Shows the sessions asked for, read at most --concurrency ahead: a table a session at a time, or one file. */
export async function showReviewSessions(
  flags: ShowFlags,
  globals: GlobalOptions,
  targetOf: TargetOf,
  deps: CommandDeps,
  outer: CommandDeps,
): Promise<number> {
  const showPin = flags.showPin === true;
  const format = flags.output === 'xlsx' ? 'xlsx' : globals.json === true ? 'json' : (flags.output ?? 'table');
  // Each flag, else the profile's key: the admin's zone and date format serve both ways (docs/cli.md).
  const { values } = await resolveSettings({ ...globals, ...flags }, deps);
  const times = {
    timezone: settingText(values.timezone, 'timezone'),
    dateFormat: settingText(values.dateFormat, 'dateFormat'),
  };
  const ids = await idsOf(flags, deps);
  const several = ids.length > 1 || flags.file !== undefined;
  // The times as asked, else this computer's zone: checked before the target is read (exit 2, nothing asked).
  const reading = readOutputTimes(times, systemTimeZone(deps.env));
  if (!reading.ok) throw new UsageError(reading.message);
  const tableTimes = reading.times;
  // Where the zone came from, as the table's Times line and a workbook's header notes say it: the flag or the profile.
  const timesFrom = values.timezone?.from ?? "this computer's zone; --timezone to change";
  // Text files get the times as sent unless asked; wall times name no zone: the table's, said on stderr.
  const zoneGiven = times.timezone !== undefined;
  const wallTimes = times.dateFormat !== undefined || format === 'xlsx';
  const target = await targetOf();
  if (target.kind === 'remote') for (const id of ids) pathSegment(id, 'review-session show: the review session id');
  const api = await openToRead(target, globals.dryRun === true, deps);
  const where = describeTarget(target.report);
  const columns = new cells.ResultColumns();
  const spool = new SpoolSink(new LineSplitter((line) => written(JSON.parse(line) as cells.SessionOutcome)));
  let only: cells.SessionOutcome | undefined;
  let views = 0;
  const redacted = { fields: 0 };
  let written: (outcome: cells.SessionOutcome) => Promise<void>;
  try {
    // Memory holds the sessions read ahead of the one written, however many are asked.
    const limit = target.kind === 'remote' ? target.remote.concurrency : REMOTE_CONCURRENCY;
    for await (const outcome of inOrderAhead(ids, limit, (id) => readSession(api, id, showPin, several, redacted))) {
      columns.add(outcome);
      if ('error' in outcome)
        await say(deps, `examctl: review session ${outcome.externalId} on ${where}: ${outcome.error}`);
      if (!several) only = outcome;
      else if (format !== 'table') await spool.write(`${JSON.stringify(outcome)}\n`);
      if (format === 'table' && 'session' in outcome)
        await deps.stdout.write(
          (views++ === 0 ? '' : '\n') + (await tableView(outcome.session, showPin, tableTimes, timesFrom, deps)),
        );
    }
  } catch (error) {
    await spool.discard();
    throw error;
  } finally {
    await api.close();
  }
  if (only !== undefined && 'error' in only) {
    if (format === 'json')
      await printJson(outer, { target: target.report, externalId: only.externalId, errors: only.errors ?? [] });
    return 1;
  }
  if (format === 'json' && only !== undefined) await printJson(deps, only.session, 2);
  else if (format !== 'table') {
    // A text file's wall times say their zone in a last column; a workbook in its properties and notes.
    const zoneColumn = times.dateFormat !== undefined && format !== 'xlsx' ? { timeZoneColumn: tableTimes.zone } : {};
    const layout = columns.layout({ pinColumn: showPin, sessionColumn: several, ...zoneColumn });
    const eachTable: cells.EachTable = async (write) => {
      written = async (outcome) => write(cells.outcomeTable(outcome, layout));
      if (only !== undefined) await written(only);
      await spool.commit();
    };
    // The spool discarded also when the workbook is refused before the commit (a terminal).
    if (format === 'xlsx')
      await writeXlsx(
        layout.header,
        columns.results + columns.failed,
        eachTable,
        tableTimes,
        timesFrom,
        ids,
        deps,
      ).finally(() => spool.discard());
    else {
      const textOptions = {
        decimalComma: values.decimalSeparator?.value === ',',
        times: zoneGiven || wallTimes ? tableTimes : undefined,
        delimiter: values.delimiter?.value,
        bom: flags.bom,
      };
      await cells.writeTextRows(format, eachTable, layout.header, textOptions, deps.stdout, deps.stdoutIsTTY);
    }
    // A file's wall times in a zone nobody named: which one, since the file cannot say.
    if (!zoneGiven && wallTimes)
      await say(deps, `times in ${tableTimes.zone} (this computer's zone; --timezone to change)`);
  }
  if (redacted.fields > 0) await say(deps, `PIN [redacted] in ${formatCount(redacted.fields)} free-text field(s)`);
  if (!several) await say(deps, `review session ${ids[0]} from ${where}`);
  else {
    const read = `${formatCount(ids.length - columns.failed)} read (${formatCount(columns.results)} results)`;
    const failures =
      columns.failed === 0 ? '' : `, ${formatCount(columns.failed)} failed (one row each, with its error)`;
    await say(deps, `${formatCount(ids.length)} review sessions from ${where}: ${read}${failures}`);
  }
  return columns.failed === 0 ? 0 : 1;
}

/** The zone of this computer: TZ when it names a zone, else what Intl says, else UTC. */
function systemTimeZone(env: Env): string {
  const tz = env['TZ']?.replace(/^:/, '');
  if (tz !== undefined && tz !== '' && isKnownTimeZone(tz)) return tz;
  const resolved = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return typeof resolved === 'string' && isKnownTimeZone(resolved) ? resolved : 'UTC';
}

/** The ids asked for: the arguments, then the --file's (docs/input-formats.md, "Id list files"). */
async function idsOf(options: ShowFlags, deps: CommandDeps): Promise<string[]> {
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
  }
  if (ids.length === 0)
    throw new UsageError('review-session show: give a review session id (or several, or --file ids.csv)');
  return ids;
}

/** One session as the table shows it (docs/human.md), fitted to stdout's width. */
async function tableView(
  session: ReviewSession,
  showPin: boolean,
  times: OutputTimes,
  timesFrom: string,
  deps: CommandDeps,
): Promise<string> {
  const { renderReviewSession } = await import('../terminal/review-session-view.js');
  const { stdoutTableStyle } = await import('../terminal/table-format.js');
  return renderReviewSession(session, { ...stdoutTableStyle(deps), showPin, times, timesFrom });
}

/** The table as a typed workbook on stdout or --out (times: docs/cli.md, "Times"); what did not fit said on stderr. */
async function writeXlsx(
  header: string[],
  rowCount: number,
  eachTable: cells.EachTable,
  times: OutputTimes,
  timesFrom: string,
  ids: readonly string[],
  deps: CommandDeps,
): Promise<void> {
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
  await warnCut(written as TablesWritten, deps);
}

/** What did not fit Excel's limits, said on stderr: the workbook holds the markers. */
async function warnCut(cut: TablesWritten, deps: CommandDeps): Promise<void> {
  if (cut.cutCells.count > 0) await say(deps, `warning: ${cutCellsWords(cut.cutCells, " of the service's answer")}`);
  for (const [count, what, where] of [
    [cut.cutColumns, 'columns', 'column'],
    [cut.cutRows, 'results', 'row'],
  ] as const) {
    if (count > 0)
      await say(
        deps,
        `warning: the service's answer has more ${what} than a sheet holds: the last ${formatCount(count)} were cut, the sheet's last ${where} says how many; -o csv or ndjson writes them all`,
      );
  }
}

/** One session's outcome: its Content (PIN withheld unless `showPin`), or why it could not be read (1101). */
async function readSession(
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
