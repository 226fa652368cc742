import { REMOTE_CONCURRENCY } from '../../defaults.js';
import { isKnownTimeZone } from '../../domain/local-time.js';
import { readSession } from '../../pipeline/review-session-read.js';
import type { ReviewSession } from '../../domain/types.js';
import { UsageError } from '../../system/errors.js';
import { formatCount } from '../../formats/number-format.js';
import { readOutputTimes, type OutputTimes, type OutputTimeSettings } from '../../report/output-times.js';
import { resolveSettings, settingText, type SettingFlags } from '../../context/settings.js';
import { describeTarget } from '../../report/report-writers.js';
import type { TablesWritten } from '../../report/xlsx-report-writer.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { openTargetApi } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import type { ReviewSessionShowOptions } from './review-session-show.options.js';
import { dataForStdout, say } from '../../formats/terminal-text.js';
import { withOutFile } from '../../context/out-file.js';
import * as cells from '../../report/review-session-csv.js';
import { LineSplitter, SpoolSink } from '../../system/text-sink.js';
import { inOrderAhead } from '../../system/in-order-ahead.js';
import { pathIdProblem } from '../../api/url-policy.js';
import { displayNameOf, inputPathOf, refuseTooLong, sayOnce } from '../../pipeline/command-input.js';
import type { Env } from '../../system/env-values.js';

type ShowOptions = Omit<ReviewSessionShowOptions, 'out'>;

/** `examctl review-session show`: docs/cli.md, "review-session show" (and its one-id failures, above it). */
export function run(
  { out, ...options }: ReviewSessionShowOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
): Promise<number> {
  return withOutFile(out, deps, (to) => show(options, to, targetOf, deps));
}

/** The zone of this computer: TZ when it names a zone, else what Intl says, else UTC. */
function systemTimeZone(env: Env): string {
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
async function outputSettings(
  flags: Pick<ShowOptions, 'timezone' | 'dateFormat' | 'delimiter' | 'decimalSeparator'>,
  globals: Pick<SettingFlags, 'profile' | 'baseUrl' | 'target' | 'store'>,
  deps: CommandDeps,
): Promise<{
  times: OutputTimeSettings;
  delimiter: ShowOptions['delimiter'];
  decimalSeparator: ShowOptions['decimalSeparator'];
  profile?: string;
}> {
  const { values, profile } = await resolveSettings({ ...globals, ...flags }, deps.env);
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
async function idsOf(
  options: Pick<ShowOptions, 'externalIds' | 'file' | 'sheet' | 'hiddenRows'>,
  deps: CommandDeps,
): Promise<string[]> {
  const ids = [...(options.externalIds ?? [])];
  for (const id of ids) refuseTooLong(id, 'review-session show');
  if (options.file !== undefined) {
    const { readIdList } = await import('../../input/id-list.js');
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

async function show(options: ShowOptions, deps: CommandDeps, targetOf: TargetOf, outer: CommandDeps): Promise<number> {
  const {
    externalIds,
    file,
    sheet,
    hiddenRows,
    output,
    showPin,
    timezone,
    dateFormat,
    bom,
    delimiter: delimiterFlag,
    decimalSeparator: separatorFlag,
    ...rest
  } = options;
  const globals = onlyGlobals(rest);
  const json = globals.json === true || output === 'json';
  const settings = await outputSettings(
    { timezone, dateFormat, delimiter: delimiterFlag, decimalSeparator: separatorFlag },
    globals,
    deps,
  );
  const { delimiter, decimalSeparator } = settings;
  const ids = await idsOf({ externalIds, file, sheet, hiddenRows }, deps);
  const several = ids.length > 1 || file !== undefined;
  // The times as asked (--timezone, --date-format, the profile's), else in this computer's zone:
  // checked before the target is read, a bad zone or format is exit 2 with nothing asked.
  const reading = readOutputTimes(settings.times, systemTimeZone(deps.env));
  if (!reading.ok) throw new UsageError(reading.message);
  const tableTimes = reading.times;
  // Text files and scripts get the times as sent (RFC 3339, each with its offset) unless a flag or the
  // profile asks. A date format writes wall times, which name no zone, and a workbook's date cells keep
  // none: those are in the admin's zone, the table's (--timezone, the profile's, else this computer's), said on stderr.
  const zoneGiven = settings.times.timezone !== undefined;
  const wallTimes = settings.times.dateFormat !== undefined || output === 'xlsx';
  const fileTimes = zoneGiven || wallTimes ? tableTimes : undefined;
  const fileOutput = json || output === 'ndjson' || output === 'csv' || output === 'xlsx';
  const target = await targetOf();
  for (const id of target.kind === 'remote' ? ids : []) {
    const problem = pathIdProblem(id, 'review-session show: the review session id');
    if (problem !== undefined) throw new UsageError(problem);
  }
  // A read: an existing local store is opened read-only, without the lock (docs/store.md, "What a
  // read sees"), so a store the user cannot write is read too; only a missing one is created, not in a dry run.
  const { storeExists } = await import('../../engine/store/index.js');
  const dryRun = target.kind === 'local' && (globals.dryRun === true || (await storeExists(target.store)));
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun, deps });
  if (api === null)
    throw new UsageError(
      `no local store yet at ${target.report.kind === 'local' ? target.report.store : ''}: nothing to read in a dry run`,
    );
  const where = describeTarget(target.report);
  const columns = new cells.ResultColumns();
  const spool = new SpoolSink(new LineSplitter((line) => written(JSON.parse(line) as cells.SessionOutcome)));
  let only: cells.SessionOutcome | undefined;
  let views = 0;
  const redacted = { fields: 0 };
  let written: (outcome: cells.SessionOutcome) => Promise<void>;
  try {
    // Read at most --concurrency ahead of the one written, in the order asked: memory holds those, however many.
    const limit = target.kind === 'remote' ? target.remote.concurrency : REMOTE_CONCURRENCY;
    for await (const outcome of inOrderAhead(ids, limit, (id) =>
      readSession(api, id, showPin === true, several, redacted),
    )) {
      columns.add(outcome);
      if ('error' in outcome)
        await say(deps, `examctl: review session ${outcome.externalId} on ${where}: ${outcome.error}`);
      if (!several) only = outcome;
      else if (fileOutput) await spool.write(`${JSON.stringify(outcome)}\n`);
      // The table: each session's as it comes, one after another.
      if (!fileOutput && 'session' in outcome)
        await deps.stdout.write(
          (views++ === 0 ? '' : '\n') + (await tableView(outcome.session, options, tableTimes, settings, deps)),
        );
    }
  } catch (error) {
    await spool.discard();
    throw error;
  } finally {
    await api.close();
  }
  if (only !== undefined && 'error' in only) {
    if (json) await printJson(outer, { target: target.report, externalId: only.externalId, errors: only.errors ?? [] });
    return 1;
  }
  if (json && only !== undefined) await printJson(deps, only.session, 2);
  else if (fileOutput) {
    // A text file's wall times (a --date-format's) say their zone in a last column; a workbook says it in its properties and header notes.
    const zoneColumn =
      settings.times.dateFormat !== undefined && output !== 'xlsx' ? { timeZoneColumn: tableTimes.zone } : {};
    const layout = columns.layout({ pinColumn: showPin === true, sessionColumn: several, ...zoneColumn });
    const textOptions: cells.TextCellOptions = { decimalComma: decimalSeparator === ',', times: fileTimes };
    const eachTable = async (write: (table: cells.ResultsTable) => void | Promise<void>): Promise<void> => {
      written = async (outcome) => write(cells.outcomeTable(outcome, layout));
      if (only !== undefined) await written(only);
      await spool.commit();
    };
    // Also when refused before the commit (a terminal).
    if (output === 'xlsx')
      await warnCut(
        await writeXlsx(
          layout.header,
          columns.results + columns.failed,
          eachTable,
          tableTimes,
          timesFromOf(settings),
          ids,
          deps,
        ).finally(() => spool.discard()),
        deps,
      );
    else if (json) {
      // One JSON array as JSON.stringify(rows, null, 2) writes it, a session's rows at a time.
      let first = true;
      await eachTable(async (table) => {
        const rows = cells
          .jsonRows(table, textOptions)
          .map((row) => `  ${JSON.stringify(row, null, 2).replaceAll('\n', '\n  ')}`);
        if (rows.length === 0) return;
        await deps.stdout.write(`${first ? '[\n' : ',\n'}${rows.join(',\n')}`);
        first = false;
      });
      await deps.stdout.write(first ? '[]\n' : '\n]\n');
    } else if (output === 'ndjson')
      await eachTable((table) =>
        deps.stdout.write(
          cells
            .jsonRows(table, textOptions)
            .map((row) => `${JSON.stringify(row)}\n`)
            .join(''),
        ),
      );
    else {
      const { withUtf8Bom, csvLine } = await import('../../formats/csv-cell.js');
      const separator = delimiter === 'tab' ? '\t' : (delimiter ?? ',');
      await deps.stdout.write(
        dataForStdout(withUtf8Bom(csvLine(layout.header, separator), bom !== false), deps.stdoutIsTTY),
      );
      await eachTable((table) =>
        deps.stdout.write(dataForStdout(cells.csvRows(table, separator, textOptions), deps.stdoutIsTTY)),
      );
    }
  }
  // A file's wall times in a zone nobody named: which one, since the file cannot say.
  if (fileOutput && !zoneGiven && wallTimes && !(json && !several)) {
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

/** One session as the table shows it (docs/human.md), fitted to stdout's width. */
async function tableView(
  session: ReviewSession,
  options: ShowOptions,
  times: OutputTimes,
  settings: { times: OutputTimeSettings; profile?: string },
  deps: CommandDeps,
): Promise<string> {
  const { renderReviewSession } = await import('../../terminal/review-session-view.js');
  const { colorEnabled } = await import('../../terminal/table-format.js');
  // The table goes to stdout: colour follows stdout (`show X | less` gets none), not stdin.
  const width = deps.stdoutIsTTY ? deps.stdoutColumns : undefined;
  const color = colorEnabled({ isTTY: deps.stdoutIsTTY ?? false, env: deps.env });
  const timesFrom = timesFromOf(settings);
  return renderReviewSession(session, { color, showPin: options.showPin === true, times, timesFrom, width });
}

/** Where the times' zone came from, as the table's Times line and a workbook's header notes say it. */
function timesFromOf(settings: { times: OutputTimeSettings; profile?: string }): string {
  const zoneFrom = settings.times.timezone?.origin;
  if (zoneFrom === undefined) return "this computer's zone; --timezone to change";
  return zoneFrom.startsWith('profile ') ? `profile ${settings.profile ?? ''}` : zoneFrom;
}

/**
 * The table as a typed workbook on stdout (or --out), its times as docs/cli.md, "Times" says.
 * The rows go into the sheet a session at a time (`eachTable`).
 */
async function writeXlsx(
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
    import('../../report/xlsx-report-writer.js'),
    import('../../terminal/workbook-stdout.js'),
    import('../../report/output-times.js'),
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
async function warnCut(cut: TablesWritten, deps: CommandDeps): Promise<void> {
  const lines: string[] = [];
  if (cut.cutCells.count > 0) {
    const first =
      cut.cutCells.first === undefined ? '' : ` (first: ${cut.cutCells.first.sheet}!${cut.cutCells.first.reference})`;
    lines.push(
      `${formatCount(cut.cutCells.count)} cells of the service's answer longer than a cell holds (32,767 characters) were cut, each ending with "…[cut by examctl: ...]"${first}`,
    );
  }
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
