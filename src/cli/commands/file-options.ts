import { grouped, HELP_GROUP, option } from '../option-table.js';

/** The worksheet of an .xlsx input; every command whose --file may be a workbook takes it. */
export const SHEET_OPTION = option('--sheet <name|number>', '.xlsx input: the worksheet, by tab name (exact, else any case) or 1-based position (default: the first visible one)');

/** CSV that examctl writes with no input to follow starts with a UTF-8 BOM (Excel's "CSV UTF-8"), unless this. */
export const NO_BOM_OPTION = option('--no-bom', 'csv output: leave out the UTF-8 BOM that Excel on Windows needs to show accents (Chloé, not ChloÃ©)');

/** The encoding of a CSV input without a BOM (a WHATWG label, read by TextDecoder). */
export const ENCODING_OPTION = option(
  '--encoding <label>',
  'CSV input without a BOM: its encoding, e.g. windows-1252 (Excel\'s "CSV (Comma delimited)" on Windows); default UTF-8',
);

/** The flags of every command that reads a record file and may be fed its own CSV run report back. */
export const FILE_OPTIONS = grouped(HELP_GROUP.input, [
  option('--ignore-unknown-columns', 'ignore CSV columns that are not API fields instead of failing'),
  option('--only-failed', 'with a run report (from --report x.csv or x.xlsx) as --file: send only the rows whose status is not ok, e.g. after fixing them'),
  SHEET_OPTION,
  ENCODING_OPTION,
  option(
    '--timezone <zone>',
    '.xlsx input: IANA zone (e.g. Europe/Paris) of zone-less date-time cells in StartDateTime/EndDateTime; an unknown zone is refused before anything is read (CSV and JSON texts carry their own offset)',
  ),
] as const);
