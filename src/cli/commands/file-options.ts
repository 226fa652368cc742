import { option } from '../option-table.js';

/** The flags of every command that reads a record file and may be fed its own CSV run report back. */
export const FILE_OPTIONS = [
  option('--ignore-unknown-columns', 'ignore CSV columns that are not API fields instead of failing'),
  option('--only-failed', 'with a CSV run report (from --report x.csv) as --file: send only the rows whose status is not ok, e.g. after fixing them'),
] as const;
