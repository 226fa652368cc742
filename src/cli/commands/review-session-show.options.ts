import { argument, choice, grouped, HELP_GROUP, option, brief } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { OUT_OPTION } from './out-option.js';
import { DELIMITER_OPTION, NO_BOM_OPTION, SHEET_OPTIONS } from './file-options.js';
import { TARGET_FLAGS } from '../../flags/taken-flags.js';
import { needing } from '../../flags/flag-pairs.js';

const REVIEW_SESSION_SHOW_OPTIONS = [
  argument(
    'externalIds',
    '[externalId...]',
    'review session external ids; several (or --file) give one table with a ReviewSession column',
  ),
  ...grouped(HELP_GROUP.input, [
    brief(
      'ids: a CSV/.xlsx column, lines or JSON',
      option(
        '-f, --file <path>',
        'the review sessions to show: a CSV or .xlsx column ExternalId, one id per line, or a JSON array',
      ),
      'the ids given',
    ),
    ...needing(['--file'], 'they read an .xlsx id list', SHEET_OPTIONS),
  ] as const),
  ...grouped(HELP_GROUP.output, [
    brief(
      'table, json, csv, ndjson or xlsx',
      choice(
        '-o, --output <format>',
        'table (header, results, counts per status, mean score), json (the Content as sent; several sessions: one array of result rows), csv (one row per result, spreadsheet-safe), ndjson (one JSON object per result) or xlsx (the same rows as a typed workbook: numbers, dates, booleans; to a file: --out or redirect stdout)',
        ['table', 'json', 'csv', 'ndjson', 'xlsx'],
        'table',
      ),
    ),
    brief(
      'IANA zone of the times shown',
      option(
        '--timezone <zone>',
        "IANA zone (e.g. Europe/London) the times are shown in; default this computer's zone, said on stderr for a file; csv, ndjson and json without --date-format keep the service's text as sent",
      ),
      "this computer's",
    ),
    brief(
      'how times are written, e.g. "DD/MM/YYYY HH:mm"',
      option(
        '--date-format <format>',
        'how times and dates are written: YYYY MM DD HH mm ss with any separators, e.g. "DD/MM/YYYY HH:mm" (the tokens --date-format reads in input files); xlsx: the cells\' number format',
      ),
      'ISO',
    ),
    brief(
      "show the session's PIN as the service sent it",
      option(
        '--show-pin',
        "show the review session's PIN (Content.Pin) exactly as the service sent it, in every format (csv and xlsx: a Pin column); withheld otherwise",
      ),
      'withheld',
    ),
    OUT_OPTION,
    NO_BOM_OPTION,
    DELIMITER_OPTION,
    brief(
      "csv output: '.' or ',' (with --delimiter ';')",
      choice(
        '--decimal-separator <separator>',
        "csv output: the decimal separator of fractional numbers, '.' (default) or ',' (Excel in a locale with a decimal comma; give --delimiter ';' with it)",
        ['.', ','],
      ),
      "'.'",
    ),
  ] as const),
] as const;

export type ReviewSessionShowOptions = CommandOptions<typeof REVIEW_SESSION_SHOW>;

export const REVIEW_SESSION_SHOW = declareCommand({
  path: ['review-session', 'show'],
  description: 'show review sessions (GET /external/review-sessions/{id}); --json prints the Content',
  examples: [
    'examctl review-session show RS-MATH1-OCT',
    'examctl review-session show RS-MATH1-OCT -o csv > results.csv',
    '# a term in one workbook, times in London',
    'examctl review-session show --file term-sessions.csv -o xlsx --timezone Europe/London --out term.xlsx',
    'examctl review-session show RS-MATH1-OCT RS-SCI1-OCT -o csv --timezone Europe/London --date-format "DD/MM/YYYY HH:mm"',
    '# for Excel in a German (decimal comma) locale',
    "examctl review-session show RS-MATH1-OCT -o csv --delimiter ';' --decimal-separator ,",
    'examctl review-session show RS-MATH1-OCT --json',
    'examctl review-session show RS-MATH1-OCT --show-pin',
  ],
  options: REVIEW_SESSION_SHOW_OPTIONS,
  takes: [...TARGET_FLAGS, '--dry-run'],
});
