import { errorsOf } from '../../api/envelope-errors.js';
import type { ReviewSession } from '../../domain/types.js';
import { UsageError } from '../../system/errors.js';
import { describeTarget } from '../../report/report-writers.js';
import { WITHHELD_PIN } from '../../formats/report-csv-contract.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { openTargetApi } from '../../context/target.js';
import { type TargetOf } from '../../context/resolved-target.js';
import type { ReviewSessionShowOptions } from './review-session-show.options.js';
import { dataForStdout, terminalLine } from '../../formats/terminal-text.js';
import { withOutFile } from '../../context/out-file.js';

/**
 * `examctl review-session show`: --json (or -o json) prints the Content object; -o csv the
 * Results rows; the table goes to stdout, or to stderr when --json holds stdout.
 * A failure (1101 not found...) exits 1 with the service's errors; with --json stdout still
 * gets one document: `{ "target", "externalId", "errors" }`.
 */
export function run({ out, ...options }: ReviewSessionShowOptions, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  return withOutFile(out, deps, (to) => show(options, to, targetOf));
}

async function show({ externalId, output, bom, delimiter, showPin, ...globals }: Omit<ReviewSessionShowOptions, 'out'>, deps: CommandDeps, targetOf: TargetOf): Promise<number> {
  const options = onlyGlobals(globals);
  const target = await targetOf();
  // A read changes nothing, so a dry run reads all the same; only creating a missing local store is left out.
  const dryRun = target.kind === 'local' && (options.dryRun ?? false);
  const api = await (deps.openApi ?? openTargetApi)(target, { dryRun, deps });
  if (api === null) throw new UsageError(`no local store yet at ${target.report.kind === 'local' ? target.report.store : ''}: nothing to read in a dry run`);
  let result;
  try {
    result = await api.getReviewSession(externalId);
  } finally {
    await api.close();
  }
  const where = describeTarget(target.report);
  if (!result.envelope.Success || !result.envelope.Content) {
    const errors = errorsOf(result.envelope);
    const text = errors.map((e) => `${e.code ?? '-'} ${e.message}`).join('; ') || `HTTP ${result.status}`;
    await deps.stderr.write(terminalLine(`examctl: review session ${externalId} on ${where}: ${text}`) + '\n');
    if (options.json || output === 'json') {
      await deps.stdout.write(`${JSON.stringify({ target: target.report, externalId: externalId, errors })}\n`);
    }
    return 1;
  }
  // --show-pin: the session as sent (the admin asked for the PIN to hand it to candidates).
  const sent = result.envelope.Content as ReviewSession;
  const session = showPin === true ? sent : withPinWithheld(sent);
  const pinColumn = showPin === true;
  if (options.json || output === 'json') {
    await deps.stdout.write(`${JSON.stringify(session, null, 2)}\n`);
  } else if (output === 'csv') {
    const { reviewSessionResultsCsv } = await import('../../report/review-session-csv.js');
    const { withUtf8Bom } = await import('../../formats/csv-cell.js');
    await deps.stdout.write(dataForStdout(withUtf8Bom(reviewSessionResultsCsv(session, { pinColumn }, delimiter === 'tab' ? '\t' : (delimiter ?? ',')), bom !== false), deps.stdoutIsTTY));
  } else if (output === 'xlsx') {
    const [{ reviewSessionResultsTable }, { writeTablesXlsx }, { writeWorkbookToStdout }] = await Promise.all([
      import('../../report/review-session-csv.js'),
      import('../../report/xlsx-report-writer.js'),
      import('../../terminal/workbook-stdout.js'),
    ]);
    // Every cell text, as in the CSV: ids, keycodes and dates stay as the service sent them.
    const table = reviewSessionResultsTable(session, { pinColumn });
    await writeWorkbookToStdout(deps, `examctl review-session show ${externalId} -o xlsx > results.xlsx`, (stream) => writeTablesXlsx(stream, [{ name: 'Results', ...table }]));
  } else {
    const { renderReviewSession } = await import('../../terminal/review-session-view.js');
    const { colorEnabled } = await import('../../terminal/table-format.js');
    // The table goes to stdout: colour follows stdout (`show X | less` gets none), not stdin.
    const width = deps.stdoutIsTTY ? deps.stdoutColumns : undefined;
    const color = colorEnabled({ isTTY: deps.stdoutIsTTY ?? false, env: deps.env });
    await deps.stdout.write(renderReviewSession(session, { color, showPin: pinColumn, ...(width === undefined ? {} : { width }) }));
  }
  await deps.stderr.write(terminalLine(`review session ${externalId} from ${where}`) + '\n');
  return 0;
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
 * The marker, not null: null is the API's "no PIN" (UsePin false), and a PIN in use stays
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
