import type { RunIndex } from '../runs/read-run.js';
import type { CommandDeps } from '../context/command-deps.js';
import type { LeaverRows, RunInput } from '../pipeline/run-show.js';
import { say } from '../formats/terminal-text.js';
import { formatCount } from '../formats/number-format.js';

/**
 * The leavers' rows of a table input's CSV or xlsx report, as `runs show --report` rebuilds them
 * (docs/sync.md, "In the report of a CSV or .xlsx input"); undefined for no leaver or no table.
 */
export async function leaverRows(
  run: RunIndex,
  input: Extract<RunInput, { count: number }>,
  deps: CommandDeps,
): Promise<LeaverRows | undefined> {
  const listed = run.countFrom(input.count);
  if (run.header.command !== 'user sync' || input.table === undefined || listed === 0) return undefined;
  const { leaverTable, leaverRow, underLeaverHeader } = await import('./user-sync-memory.js');
  const table = leaverTable(input.table);
  await say(
    deps,
    `run ${run.id}: the report's ${formatCount(listed)} leaver ${listed === 1 ? 'row has' : 'rows have'} ExternalId and DisableLogin only: the run journal does not keep leavers' FirstName and LastName (the run's own --report has them)`,
  );
  return {
    fileRows: (rows) => underLeaverHeader(table, rows),
    row: (item) => leaverRow(table, { ExternalId: item.id ?? '' }),
  };
}
