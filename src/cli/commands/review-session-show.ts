import { errorsOf } from '../../api/envelope-errors.js';
import type { IntegrationApi } from '../../port/integration-api.js';
import { REMOTE_CONCURRENCY } from '../../defaults.js';
import { isKnownTimeZone } from '../../domain/local-time.js';
import { reviewSessionIdProblem } from '../../domain/review-session.js';
import type { ReviewSession } from '../../domain/types.js';
import { TransientTargetError, UsageError } from '../../system/errors.js';
import { formatCount } from '../../formats/number-format.js';
import { readOutputTimes, type OutputTimes, type OutputTimeSettings } from '../../report/output-times.js';
import { resolveSettings, settingText } from '../../context/settings.js';
import { describeTarget } from '../../report/report-writers.js';
import { WITHHELD_PIN } from '../../formats/report-csv-contract.js';
import type { TablesWritten } from '../../report/xlsx-report-writer.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { openTargetApi } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import type { ReviewSessionShowOptions } from './review-session-show.options.js';
import { dataForStdout, terminalLine } from '../../formats/terminal-text.js';
import { withOutFile } from '../../context/out-file.js';
import type { ResultsTable, SessionOutcome, TextCellOptions } from '../../report/review-session-csv.js';
import { displayNameOf, inputPathOf, sayOnce } from '../../pipeline/command-input.js';

/** Most review sessions one command shows: each is held until the table is written (a term's sittings are a few dozen). */
const MAX_SESSIONS = 1000;

type ShowOptions = Omit<ReviewSessionShowOptions, 'out'>;

/**
 * `examctl review-session show`: --json (or -o json) prints the Content object; -o csv, ndjson,
 * xlsx the Results rows; the table goes to stdout, or to stderr when --json holds stdout.
 * Several ids (or --file) give one table of every session's results with a ReviewSession
 * column, the sessions read concurrently; a session that cannot be read is one row with its
 * error, and the command exits 1 with the rest written.
 * A failure (1101 not found...) exits 1 with the service's errors; with --json stdout still
 * gets one document: `{ "target", "externalId", "errors" }` (one id).
 */
export function run({ out, ...options }: ReviewSessionShowOptions, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  return withOutFile(out, deps, (to) => show(options, to, targetOf));
}

/** The zone of this computer: TZ when it names a zone, else what Intl says, else UTC. */
function systemTimeZone(env: Readonly<Record<string, string | undefined>>): string {
  const tz = env['TZ']?.replace(/^:/, '');
  if (tz !== undefined && tz !== '' && isKnownTimeZone(tz)) return tz;
  const resolved = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return typeof resolved === 'string' && isKnownTimeZone(resolved) ? resolved : 'UTC';
}

/** The times as asked (`--timezone`, `--date-format`, or the profile's), else in `defaultZone`: refused with exit 2 before anything is read. */
function outputTimes(settings: OutputTimeSettings, defaultZone: string): OutputTimes {
  const reading = readOutputTimes(settings, defaultZone);
  if (!reading.ok) throw new UsageError(reading.message);
  return reading.times;
}

/**
 * The output settings: each flag, else the profile's key (docs/cli.md, "review-session show"):
 * the admin's zone and date format serve both ways, so a profile that reads the exports in
 * Europe/London shows the results there too.
 */
async function outputSettings(
  flags: Pick<ShowOptions, 'timezone' | 'dateFormat' | 'delimiter' | 'decimalSeparator'>,
  globals: { profile?: string | undefined; baseUrl?: string | undefined; target?: string | undefined; store?: string | undefined },
  deps: CommandDeps,
): Promise<{ times: OutputTimeSettings; delimiter: ShowOptions['delimiter']; decimalSeparator: ShowOptions['decimalSeparator']; profile?: string }> {
  const { values, profile } = await resolveSettings({ ...globals, ...flags }, deps.env);
  return {
    times: { timezone: settingText(values.timezone, 'timezone'), dateFormat: settingText(values.dateFormat, 'dateFormat') },
    delimiter: values.delimiter?.value,
    decimalSeparator: values.decimalSeparator?.value,
    ...(profile === undefined ? {} : { profile: profile.name }),
  };
}

/** The ids asked for: the arguments, then the --file's (docs/input-formats.md, "Id list files"). */
async function idsOf(options: Pick<ShowOptions, 'externalIds' | 'file' | 'sheet' | 'hiddenRows'>, deps: CommandDeps): Promise<string[]> {
  const ids = [...(options.externalIds ?? [])];
  for (const id of ids) refuseTooLong(id, 'review-session show');
  if (options.file !== undefined) {
    const { readIdList } = await import('../../input/id-list.js');
    const listed = await readIdList(inputPathOf(options.file, deps), {
      displayName: displayNameOf(options.file),
      idColumn: 'ExternalId',
      ...(options.sheet === undefined ? {} : { sheet: options.sheet }),
      ...(options.hiddenRows === undefined ? {} : { hiddenRows: options.hiddenRows }),
      notice: (text) => sayOnce(deps, text),
    });
    if (listed.length === 0) throw new UsageError(`${displayNameOf(options.file)}: no review session id in the file`);
    for (const entry of listed) refuseTooLong(entry.id, `${entry.source.file}:${entry.source.line}`);
    ids.push(...listed.map((entry) => entry.id));
  } else if (options.sheet !== undefined) throw new UsageError('--sheet is for --file: the worksheet of an .xlsx id list');
  else if (options.hiddenRows !== undefined) throw new UsageError('--hidden-rows is for --file: the hidden rows of an .xlsx id list');
  if (ids.length === 0) throw new UsageError('review-session show: give a review session id (or several, or --file ids.csv)');
  if (ids.length > MAX_SESSIONS) throw new UsageError(`review-session show: ${formatCount(ids.length)} review sessions asked for, at most ${formatCount(MAX_SESSIONS)} at once: split the list`);
  return ids;
}

/**
 * An id the API would refuse as too long (string(60)) is refused before anything is sent, with
 * where it was given (docs/interpretations.md, "Review sessions").
 */
function refuseTooLong(id: string, where: string): void {
  const problem = reviewSessionIdProblem(id);
  if (problem !== null) throw new UsageError(`${where}: ${problem.message}: nothing was sent`);
}

/** A failed answer in one line: `1101 Review session not found`, or the HTTP status when the envelope says nothing. */
function failureText(result: Awaited<ReturnType<IntegrationApi['getReviewSession']>>): string {
  return errorsOf(result.envelope).map((e) => `${e.code ?? '-'} ${e.message}`).join('; ') || `HTTP ${result.status}`;
}

/**
 * Every session read, at most `limit` at once (the remote client keeps to its own limit as
 * well), in the order asked. An id asked for twice is read once. A session the service refuses
 * (1101...) or does not answer after the client's retries is an error outcome; a target that
 * cannot be used at all (the token refused, Ctrl-C) ends the command as with one id.
 */
async function readSessions(api: IntegrationApi, ids: readonly string[], limit: number, showPin: boolean): Promise<SessionOutcome[]> {
  const unique = [...new Set(ids)];
  const outcomes = new Map<string, SessionOutcome>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < unique.length) {
      const externalId = unique[next++] as string;
      try {
        const result = await api.getReviewSession(externalId);
        if (!result.envelope.Success || !result.envelope.Content) outcomes.set(externalId, { externalId, error: failureText(result), errors: errorsOf(result.envelope) });
        else {
          const sent = result.envelope.Content as ReviewSession;
          outcomes.set(externalId, { externalId, session: showPin ? sent : withPinWithheld(sent) });
        }
      } catch (error) {
        if (!(error instanceof TransientTargetError)) throw error;
        outcomes.set(externalId, { externalId, error: error.message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, unique.length) }, worker));
  return ids.map((id) => outcomes.get(id) as SessionOutcome);
}

async function show(options: ShowOptions, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  const { externalIds, file, sheet, hiddenRows, output, showPin, timezone, dateFormat, bom, delimiter: delimiterFlag, decimalSeparator: separatorFlag, ...rest } = options;
  const globals = onlyGlobals(rest);
  const json = globals.json === true || output === 'json';
  const settings = await outputSettings({ timezone, dateFormat, delimiter: delimiterFlag, decimalSeparator: separatorFlag }, globals, deps);
  const { delimiter, decimalSeparator } = settings;
  const ids = await idsOf({ externalIds, file, sheet, hiddenRows }, deps);
  const several = ids.length > 1 || file !== undefined;
  // Checked before the target is read: a bad zone or format is exit 2 with nothing asked.
  const tableTimes = outputTimes(settings.times, systemTimeZone(deps.env));
  // Text files and scripts get the times as sent (RFC 3339, each with its offset) unless a flag or the
  // profile asks. A date format writes wall times, which name no zone, and a workbook's date cells keep
  // none: those are in the admin's zone, the table's (--timezone, the profile's, else this computer's), said on stderr.
  const zoneGiven = settings.times.timezone !== undefined;
  const wallTimes = settings.times.dateFormat !== undefined || output === 'xlsx';
  const fileTimes = zoneGiven || wallTimes ? tableTimes : undefined;
  const fileOutput = json || output === 'ndjson' || output === 'csv' || output === 'xlsx';
  const target = await targetOf();
  // A read changes nothing, so a dry run reads all the same; only creating a missing local store is left out.
  const dryRun = target.kind === 'local' && (globals.dryRun ?? false);
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun, deps });
  if (api === null) throw new UsageError(`no local store yet at ${target.report.kind === 'local' ? target.report.store : ''}: nothing to read in a dry run`);
  let outcomes: SessionOutcome[];
  try {
    outcomes = await readSessions(api, ids, target.kind === 'remote' ? target.remote.concurrency : REMOTE_CONCURRENCY, showPin === true);
  } finally {
    await api.close();
  }
  const where = describeTarget(target.report);
  const failed = outcomes.filter((outcome) => 'error' in outcome).length;
  for (const outcome of outcomes) if ('error' in outcome) await deps.stderr.write(terminalLine(`examctl: review session ${outcome.externalId} on ${where}: ${outcome.error}`) + '\n');
  const [first] = outcomes as [SessionOutcome];
  if (!several && 'error' in first) {
    if (json) await deps.stdout.write(`${JSON.stringify({ target: target.report, externalId: first.externalId, errors: first.errors ?? [] })}\n`);
    return 1;
  }
  const cells = await import('../../report/review-session-csv.js');
  const pinColumn = showPin === true;
  const zoneFrom = settings.times.timezone?.origin;
  const timesFrom = zoneFrom === undefined ? "this computer's zone" : zoneFrom.startsWith('profile ') ? `profile ${settings.profile ?? ''}` : zoneFrom;
  // A text file's wall times (a --date-format's) say their zone in a last column; a workbook says it in its properties and header notes.
  const zoneColumn = settings.times.dateFormat !== undefined && output !== 'xlsx' ? { timeZoneColumn: tableTimes.zone } : {};
  const table = cells.resultsTable(outcomes, { pinColumn, sessionColumn: several, ...zoneColumn });
  const textOptions: TextCellOptions = { decimalComma: decimalSeparator === ',', times: fileTimes };
  if (json && !several && 'session' in first) {
    await deps.stdout.write(`${JSON.stringify(first.session, null, 2)}\n`);
  } else if (json || output === 'ndjson') {
    const rows = cells.jsonRows(table, textOptions);
    await deps.stdout.write(json ? `${JSON.stringify(rows, null, 2)}\n` : rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  } else if (output === 'csv') {
    const { withUtf8Bom } = await import('../../formats/csv-cell.js');
    const text = cells.resultsCsv(table, delimiter === 'tab' ? '\t' : (delimiter ?? ','), textOptions);
    await deps.stdout.write(dataForStdout(withUtf8Bom(text, bom !== false), deps.stdoutIsTTY));
  } else if (output === 'xlsx') {
    await warnCut(await writeXlsx(table, tableTimes, timesFrom, ids, deps), deps);
  } else {
    const { renderReviewSession } = await import('../../terminal/review-session-view.js');
    const { colorEnabled } = await import('../../terminal/table-format.js');
    // The table goes to stdout: colour follows stdout (`show X | less` gets none), not stdin.
    const width = deps.stdoutIsTTY ? deps.stdoutColumns : undefined;
    const color = colorEnabled({ isTTY: deps.stdoutIsTTY ?? false, env: deps.env });
    const timesLine = zoneFrom === undefined ? `${timesFrom}; --timezone to change` : timesFrom;
    const views = outcomes.flatMap((outcome) =>
      'session' in outcome ? [renderReviewSession(outcome.session, { color, showPin: pinColumn, times: tableTimes, timesFrom: timesLine, ...(width === undefined ? {} : { width }) })] : [],
    );
    await deps.stdout.write(views.join('\n'));
  }
  // A file's wall times in a zone nobody named: which one, since the file cannot say.
  if (fileOutput && !zoneGiven && wallTimes && !(json && !several)) {
    await deps.stderr.write(terminalLine(`times in ${tableTimes.zone} (this computer's zone; --timezone to change)`) + '\n');
  }
  if (!several) await deps.stderr.write(terminalLine(`review session ${ids[0]} from ${where}`) + '\n');
  else {
    const read = `${formatCount(outcomes.length - failed)} read (${formatCount(table.rows.length - failed)} results)`;
    const failures = failed === 0 ? '' : `, ${formatCount(failed)} failed (one row each, with its error)`;
    await deps.stderr.write(terminalLine(`${formatCount(outcomes.length)} review sessions from ${where}: ${read}${failures}`) + '\n');
  }
  return failed === 0 ? 0 : 1;
}

/**
 * The table as a typed workbook on stdout (or --out), times in `times.zone`, shown by the
 * `--date-format` when given. Excel's dates keep no zone: the workbook names it in its custom
 * document property TimeZone and in a note on each time column's header, its columns as in CSV.
 */
async function writeXlsx(table: ResultsTable, times: OutputTimes, timesFrom: string, ids: readonly string[], deps: CommandDeps): Promise<TablesWritten> {
  const [{ sheetFormats, sheetRows, timeZoneNotes, TIME_ZONE_COLUMN }, { writeTablesXlsx }, { writeWorkbookToStdout }, { excelDateFormats }] = await Promise.all([
    import('../../report/review-session-csv.js'),
    import('../../report/xlsx-report-writer.js'),
    import('../../terminal/workbook-stdout.js'),
    import('../../report/output-times.js'),
  ]);
  let written: TablesWritten | undefined;
  const redirect = `examctl review-session show ${ids.length === 1 ? ids[0] : '--file ids.csv'} -o xlsx > results.xlsx`;
  await writeWorkbookToStdout(deps, redirect, async (stream) => {
    const sheet = { name: 'Results', header: table.header, rows: sheetRows(table, times.zone), formats: sheetFormats(table), headerNotes: timeZoneNotes(table, times.zone, timesFrom) };
    written = await writeTablesXlsx(stream, [sheet], excelDateFormats(times.format), { [TIME_ZONE_COLUMN]: times.zone });
  });
  return written as TablesWritten;
}

/** What did not fit Excel's limits, said on stderr: the workbook holds the markers. */
async function warnCut(cut: TablesWritten, deps: CommandDeps): Promise<void> {
  const lines: string[] = [];
  if (cut.cutCells.count > 0) {
    const first = cut.cutCells.first === undefined ? '' : ` (first: ${cut.cutCells.first.sheet}!${cut.cutCells.first.reference})`;
    lines.push(`${formatCount(cut.cutCells.count)} cells of the service's answer longer than a cell holds (32,767 characters) were cut, each ending with "…[cut by examctl: ...]"${first}`);
  }
  if (cut.cutColumns > 0) lines.push(`the service's answer has more columns than a sheet holds: the last ${formatCount(cut.cutColumns)} were cut, the sheet's last column says how many; -o csv or ndjson writes them all`);
  if (cut.cutRows > 0) lines.push(`the service's answer has more results than a sheet holds: the last ${formatCount(cut.cutRows)} were cut, the sheet's last row says how many; -o csv or ndjson writes them all`);
  for (const line of lines) await deps.stderr.write(terminalLine(`warning: ${line}`) + '\n');
}

const PIN_KEY = /^pin$/i;

/** A copy of `fields` with each string under a PIN key written as WITHHELD_PIN; the object itself when it has none. */
function pinsWithheld<T extends Record<string, unknown>>(fields: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    if (PIN_KEY.test(key) && typeof fields[key] === 'string') (copy ??= { ...fields })[key] = WITHHELD_PIN;
  }
  return (copy ?? fields) as T;
}

/**
 * The session as every renderer gets it (--json, -o csv, -o xlsx, the table): Content.Pin, the
 * candidates' PIN, is a secret (docs/cli-contract.md, "Run report") and is written as the marker a run report uses.
 * The marker, not null: null is the API's "no PIN", and a PIN in use stays
 * visible. UsePin and the rest are as the service sent them; a Pin a server quotes back in a
 * result row is withheld as well. `--show-pin` skips this (docs/cli.md, "Run report").
 * The local engine and `local serve` still return the PIN: they emulate the platform.
 */
export function withPinWithheld(session: ReviewSession): ReviewSession {
  const withheld = pinsWithheld(session);
  const results: unknown = session.Results;
  if (!Array.isArray(results)) return withheld;
  const rows = (results as unknown[]).map((entry) => (typeof entry === 'object' && entry !== null ? pinsWithheld(entry as Record<string, unknown>) : entry));
  return rows.some((entry, i) => entry !== results[i]) ? { ...withheld, Results: rows as ReviewSession['Results'] } : withheld;
}
