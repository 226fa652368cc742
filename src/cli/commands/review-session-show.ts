import { REMOTE_CONCURRENCY } from '../../defaults.js';
import { UsageError } from '../../system/errors.js';
import { formatCount } from '../../formats/number-format.js';
import { readOutputTimes } from '../../report/output-times.js';
import { describeTarget } from '../../report/report-writers.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { openTargetApi } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import { REVIEW_SESSION_SHOW, type ReviewSessionShowOptions } from './review-session-show.options.js';
import { takeTableFlags } from '../../flags/option-table.js';
import { dataForStdout, say } from '../../formats/terminal-text.js';
import { withOutFile } from '../../context/out-file.js';
import * as cells from '../../report/review-session-csv.js';
import { LineSplitter, SpoolSink } from '../../system/text-sink.js';
import { inOrderAhead } from '../../system/in-order-ahead.js';
import { pathIdProblem } from '../../api/url-policy.js';
import {
  idsOf,
  outputSettings,
  readSession,
  systemTimeZone,
  tableView,
  timesFromOf,
  warnCut,
  writeXlsx,
} from '../../pipeline/review-session-show.js';

type ShowOptions = Omit<ReviewSessionShowOptions, 'out'>;

/** `examctl review-session show`: docs/cli.md, "review-session show" (and its one-id failures, above it). */
export function run(
  { out, ...options }: ReviewSessionShowOptions,
  deps: CommandDeps,
  targetOf: TargetOf,
): Promise<number> {
  return withOutFile(out, deps, (to) => show(options, to, targetOf, deps));
}

async function show(options: ShowOptions, deps: CommandDeps, targetOf: TargetOf, outer: CommandDeps): Promise<number> {
  const [own, rest] = takeTableFlags(options, REVIEW_SESSION_SHOW.options);
  const { output, showPin, bom } = own;
  const globals = onlyGlobals(rest);
  const json = globals.json === true || output === 'json';
  const settings = await outputSettings(own, globals, deps);
  const { delimiter, decimalSeparator } = settings;
  const ids = await idsOf(own, deps);
  const several = ids.length > 1 || own.file !== undefined;
  // The times as asked, else this computer's zone: checked before the target is read (exit 2, nothing asked).
  const reading = readOutputTimes(settings.times, systemTimeZone(deps.env));
  if (!reading.ok) throw new UsageError(reading.message);
  const tableTimes = reading.times;
  // Text files and scripts get the times as sent unless a flag or the profile asks; wall times (a date format,
  // a workbook's date cells) name no zone: they are in the table's zone, said on stderr.
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
