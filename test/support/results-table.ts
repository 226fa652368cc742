import {
  outcomeTable,
  ResultColumns,
  type ResultsTable,
  type SessionOutcome,
} from '../../src/report/review-session-csv.js';

/** The results of `outcomes` as one table, laid out as `review-session show` lays out its sessions (ResultColumns, then outcomeTable each). */
export function resultsTable(
  outcomes: readonly SessionOutcome[],
  options: Parameters<ResultColumns['layout']>[0] = {},
): ResultsTable {
  const columns = new ResultColumns();
  for (const outcome of outcomes) columns.add(outcome);
  const layout = columns.layout(options);
  return { header: layout.header, rows: outcomes.flatMap((outcome) => outcomeTable(outcome, layout).rows) };
}
