/**
 * A report's PIN cells (WITHHELD_PIN) fed back as input, as docs/cli.md, "Run report" says: a
 * schedule is never sent without its PIN, nor with the marker as its PIN.
 */
import { InputRefusedError } from '../system/errors.js';
import { normalizeColumnName } from '../domain/field-names.js';
import { isPlainObject } from '../domain/field-rules.js';
import { reportStatusOf } from './csv-reader.js';
import type { InputRecord } from './record.js';
import { isOkStatus, isWithheldPin, PIN_KEY, WITHHELD_PIN } from '../formats/report-csv-contract.js';

/** Lines named in the refusal before "and N more". */
const LINES_SHOWN = 10;

/** Where a record holds the marker as its PIN: its own PIN field (a row), or its Schedule's (a whole JSON request). */
function withheldPinOf(record: InputRecord): 'row' | 'request' | undefined {
  if (isWithheldPin(record.fields.PIN)) return 'row';
  const schedule = record.fields.Schedule;
  return isPlainObject(schedule) && isWithheldPin(schedule.PIN) ? 'request' : undefined;
}

/** The records with each withheld PIN replaced by `pin()` (kept without one: `refuseWithheldPins` stops the run). */
export async function* withGivenPins(
  records: AsyncIterable<InputRecord>,
  pin: () => string | undefined,
): AsyncIterable<InputRecord> {
  for await (const record of records) {
    const where = withheldPinOf(record);
    const given = where === undefined ? undefined : pin();
    if (given !== undefined) {
      record.fields =
        where === 'row'
          ? { ...record.fields, PIN: given }
          : { ...record.fields, Schedule: { ...(record.fields.Schedule as Record<string, unknown>), PIN: given } };
    }
    yield record;
  }
}

/**
 * Refuses (exit 2, before anything is sent) a run whose records to send still hold the withheld-PIN marker,
 * naming the file, lines and column; with --only-failed the rows already ok do not count.
 */
export async function refuseWithheldPins(records: AsyncIterable<InputRecord>, onlyFailed: boolean): Promise<void> {
  // The lines named in the message, and how many there are: memory stays flat on a 500k-row report.
  const lines: string[] = [];
  let count = 0;
  let first: InputRecord | undefined;
  let column = 'PIN';
  for await (const record of records) {
    if (first === undefined) {
      first = record;
      const header = record.raw?.header;
      if (header !== undefined) {
        const named = header.find((name) => normalizeColumnName(name) === PIN_KEY);
        if (named === undefined) return;
        column = named;
      }
    }
    if (onlyFailed && isOkStatus(reportStatusOf(record))) continue;
    const where = withheldPinOf(record);
    if (where === undefined) continue;
    if (where === 'request') column = 'Schedule.PIN';
    count += 1;
    if (lines.length < LINES_SHOWN) lines.push(String(record.source.line));
  }
  if (first === undefined || count === 0) return;
  const [line] = lines;
  throw new InputRefusedError(
    first.source.file,
    Number(line),
    `${column} holds "${WITHHELD_PIN}" on ${count === 1 ? 'line' : 'lines'} ${lines.join(', ')}${count > LINES_SHOWN ? `, … and ${(count - LINES_SHOWN).toLocaleString('en-US')} more` : ''} ` +
      '(a run report never holds a PIN); nothing was sent: give the PIN with --pin-file or EXAMCTL_PIN (or --pin), or put the PIN back in the column',
  );
}
