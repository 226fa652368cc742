import {
  brief,
  choice,
  grouped,
  HELP_GROUP,
  kept,
  option,
  repeatable,
  repeatableFields,
} from '../../flags/option-table.js';
import { needing } from '../../flags/flag-pairs.js';
import { HIDDEN_ROWS_CHOICES } from '../../input/record.js';

/** Why --only-failed needs --file: the run report it reads. */
export const ONLY_FAILED_NEEDS = 'the run report (written by --report x.csv or x.xlsx) whose rows not ok it sends';

/** The worksheet of an .xlsx input; every command whose --file may be a workbook takes it. */
const SHEET_OPTION = brief(
  '.xlsx worksheet, by name or number',
  option(
    '--sheet <name|number>',
    '.xlsx input: the worksheet, by tab name (exact, else any case) or 1-based position (default: the first visible one; without it, another visible sheet of the same columns refuses the file)',
  ),
  'the first visible',
);

/** A sheet with hidden rows is refused unless this says which are meant (docs/input-formats.md, "Hidden rows"). */
const HIDDEN_ROWS_OPTION = brief(
  'hidden .xlsx rows (a filter): include or skip',
  choice(
    '--hidden-rows <how>',
    '.xlsx input: rows hidden (by a filter, or by hand) among the data: include acts on them as on the others, skip leaves them out; without it such a sheet is refused, naming them',
    HIDDEN_ROWS_CHOICES,
  ),
  'refused',
);

/** How an .xlsx input's sheet is read: which sheet, and its hidden rows. */
export const SHEET_OPTIONS = [SHEET_OPTION, HIDDEN_ROWS_OPTION] as const;

/** CSV that examctl writes with no input to follow starts with a UTF-8 BOM (Excel's "CSV UTF-8"), unless this. */
export const NO_BOM_OPTION = brief(
  'csv output without the UTF-8 BOM Excel needs for accents',
  option(
    '--no-bom',
    'csv output: leave out the UTF-8 BOM that Excel on Windows needs to show accents (Chloé, not ChloÃ©)',
  ),
);

/** Of CSV written with no input to answer: `;` is what Excel splits on in a locale with a decimal comma. */
export const DELIMITER_OPTION = brief(
  "csv output: ',', ';' or tab",
  choice(
    '--delimiter <delimiter>',
    "csv output: the cell delimiter, ',' (default), ';' (Excel in a locale with a decimal comma, e.g. German) or tab",
    [',', ';', 'tab'],
  ),
  "','",
);

/** The encoding of a CSV input without a BOM (a WHATWG label, read by TextDecoder). */
export const ENCODING_OPTION = brief(
  'encoding of a CSV without BOM, e.g. windows-1252',
  option(
    '--encoding <label>',
    'CSV input without a BOM: its encoding, e.g. windows-1252 (Excel\'s "CSV (Comma delimited)" on Windows); default UTF-8',
  ),
  'UTF-8',
);

/** A column of the file read as an API field (also `invigilators remove`'s id column). */
export const MAP_OPTION = brief(
  'read a column as an API field, e.g. "Student ID=ExternalId"',
  repeatable(
    '--map <column=Field>',
    'read the file\'s column (its header as written; case and spacing forgiven) as this API field, e.g. --map "Student ID=ExternalId"; repeatable',
  ),
);
export const MAP_FILE_OPTION = kept(
  brief(
    'map file: columns, value tables, computed fields (--map wins)',
    option(
      '--map-file <map.json>',
      'column-to-field map as one JSON object, {"Student ID": "ExternalId", ...}, with value tables and fields computed from columns (examctl template users --map-example); --map entries win',
    ),
  ),
  'with-digest',
);

/** How an admin's export is read as API records (docs/input-formats.md, "Mapping an export"); a profile's too. */
export const RECORD_INPUT_OPTIONS = grouped(HELP_GROUP.input, [
  MAP_OPTION,
  MAP_FILE_OPTION,
  brief(
    'a field where the file has no column or an empty cell',
    repeatableFields(
      'value of a field where the file has no such column or the cell is empty, checked like a cell, e.g. --set Role=Candidate; repeatable',
    ),
  ),
  brief(
    'how text dates are written, e.g. DD.MM.YYYY',
    option(
      '--date-format <format>',
      'how text dates and date-times are written (CSV, JSON, text cells): YYYY MM DD HH mm ss with any separators, e.g. DD.MM.YYYY or "DD.MM.YYYY HH:mm"; ISO is always read',
    ),
    'ISO only',
  ),
  brief(
    'zone of times with no offset, e.g. Europe/Berlin',
    option(
      '--timezone <zone>',
      'IANA zone (e.g. Europe/Berlin) of date-times written without an offset: text in any input, .xlsx date cells, --start/--end and prompts; a time the clocks skip or repeat fails its record. Without it an offset is required',
    ),
    'none',
  ),
] as const);

const IGNORE_UNKNOWN_COLUMNS_OPTION = brief(
  'skip columns and keys that are not API fields',
  option(
    '--ignore-unknown-columns',
    'skip CSV/xlsx columns and JSON keys that are not API fields (after --map) instead of failing',
  ),
);

/** A run report fed back as --file: only its rows that are not ok are sent. */
const [ONLY_FAILED_OPTION] = needing(['--file'], ONLY_FAILED_NEEDS, [
  brief(
    'with a run report as --file: only rows whose status is not ok',
    option(
      '--only-failed',
      'with a run report (from --report x.csv or x.xlsx) as --file: send only the rows whose status is not ok, e.g. after fixing them',
    ),
  ),
] as const);

/** The flags of every command that reads a record file and may be fed its own CSV run report back. */
export const FILE_OPTIONS = grouped(HELP_GROUP.input, [
  IGNORE_UNKNOWN_COLUMNS_OPTION,
  ONLY_FAILED_OPTION,
  ...SHEET_OPTIONS,
  ENCODING_OPTION,
  ...RECORD_INPUT_OPTIONS,
] as const);

/** FILE_OPTIONS but --only-failed: `synced adopt` reads an export as the command that sent it did. */
export const WHOLE_FILE_OPTIONS = grouped(HELP_GROUP.input, [
  IGNORE_UNKNOWN_COLUMNS_OPTION,
  ...SHEET_OPTIONS,
  ENCODING_OPTION,
  ...RECORD_INPUT_OPTIONS,
] as const);
