import { describe, expect, it } from 'vitest';
import {
  isDryRunStatus,
  statusCell,
  isOkStatus,
  addedColumnsOf,
  isRunReportHeader,
  neutraliseCell,
  noStatusColumn,
  REPORT_COLUMNS,
  restoreNeutralisedCells,
  statusColumnOf,
} from '../../src/formats/report-csv-contract.js';
import { UsageError } from '../../src/system/errors.js';

describe('the report CSV contract', () => {
  it('knows the columns a report adds, spelled as a spreadsheet may respell them', () => {
    expect([...REPORT_COLUMNS]).toEqual(['status', 'error_codes', 'error_messages']);
    expect(
      addedColumnsOf(['Run', 'ExternalId', 'errors', '', 'Status', 'error codes', 'Error-Messages', 'RUN']),
    ).toEqual([false, false, false, false, true, true, true, true]);
    // Not a run report: no column is one a report added (an export's own Status, Run are data).
    expect(addedColumnsOf(['ExternalId', 'Status', 'Run', 'Note'])).toEqual([false, false, false, false]);
    // A report's columns follow its last status: an older examctl's report of an export with its own Run.
    expect(addedColumnsOf(['ExternalId', 'Run', 'status', 'error_codes', 'error_messages', 'note'])).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it('a run report header has status and error_codes or error_messages (one deleted in a spreadsheet); status alone is not enough', () => {
    expect(isRunReportHeader(['ExternalId', 'Status', 'Error Codes', 'error_messages'])).toBe(true);
    expect(isRunReportHeader(['ExternalId', 'status', 'error_codes', 'run'])).toBe(true);
    expect(isRunReportHeader(['ExternalId', 'error_codes', 'error_messages'])).toBe(false);
    expect(isRunReportHeader(['ExternalId', 'status'])).toBe(false);
    expect(statusColumnOf(['ExternalId', ' STATUS '])).toBe(1);
    expect(statusColumnOf(['ExternalId'])).toBe(-1);
  });

  it('ok in any case with spaces around is ok; anything else (and no cell) needs work', () => {
    for (const cell of ['ok', ' OK ', 'Ok']) expect(isOkStatus(cell)).toBe(true);
    for (const cell of ['failed', 'partial', 'skipped', '', 'okay', undefined]) expect(isOkStatus(cell)).toBe(false);
  });

  it('what the writer neutralises, the reader restores exactly', () => {
    const values = ['=1+1', '+44 20', '-5', '@home', '\tx', "'=x", "''+1", "'plain", 'plain', ''];
    const cells = values.map(neutraliseCell);
    expect(cells.slice(0, 4)).toEqual(["'=1+1", "'+44 20", "'-5", "'@home"]);
    restoreNeutralisedCells(cells);
    // Cells are trimmed after restoring, as every cell is: a leading tab does not survive.
    expect(cells).toEqual(values.map((value) => (value === '\tx' ? 'x' : value)));
  });

  it('--only-failed on a file without a status column is a usage error naming the file', () => {
    const error = noStatusColumn('users.csv');
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      '--only-failed needs a run report CSV or .xlsx (written by --report x.csv or x.xlsx): no status column in users.csv',
    );
  });

  it("a dry run never writes ok: its statuses are dry-run marks the reader knows, a real run's never are", () => {
    for (const status of ['ok', 'partial', 'failed', 'skipped']) {
      const dry = statusCell({ status, dryRun: true });
      expect(isOkStatus(dry)).toBe(false);
      expect(isDryRunStatus(statusCell({ status }))).toBe(false);
      expect(statusCell({ status, inDoubt: true })).toBe('unknown');
      if (status === 'ok' || status === 'failed') expect(isDryRunStatus(dry)).toBe(true);
    }
    expect([statusCell({ status: 'ok', dryRun: true }), statusCell({ status: 'failed', dryRun: true })]).toEqual([
      'valid',
      'invalid',
    ]);
    // A spreadsheet may respell the cell.
    expect(isDryRunStatus(' Valid ')).toBe(true);
    expect(isDryRunStatus('INVALID')).toBe(true);
  });
});
