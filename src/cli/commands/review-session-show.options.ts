import { argument, choice, option, type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';
import { OUT_OPTION } from './out-option.js';
import { DELIMITER_OPTION, NO_BOM_OPTION } from './file-options.js';

export const REVIEW_SESSION_SHOW_OPTIONS = [
  argument('externalId', '<externalId>', 'review session external id'),
  choice(
    '-o, --output <format>',
    'table (header, results, counts per status, mean score), json (the Content as sent), csv (one row per result, spreadsheet-safe) or xlsx (the same rows as a workbook, every cell text; to a file: --out or redirect stdout)',
    ['table', 'json', 'csv', 'xlsx'],
    'table',
  ),
  option(
    '--show-pin',
    "show the review session's PIN (Content.Pin) exactly as the service sent it, in every format (csv and xlsx: a Pin column); withheld otherwise",
  ),
  OUT_OPTION,
  NO_BOM_OPTION,
  DELIMITER_OPTION,
] as const;

export type ReviewSessionShowOptions = OptionsOf<typeof REVIEW_SESSION_SHOW_OPTIONS> & GlobalOptions;

export const REVIEW_SESSION_SHOW = declareCommand({
  path: ['review-session', 'show'],
  description: 'show a review session (GET /external/review-sessions/{id}); --json prints its Content',
  examples: [
    'examctl review-session show RS-MATH1-OCT',
    'examctl review-session show RS-MATH1-OCT -o csv > results.csv',
    '# for Excel in a German (decimal comma) locale',
    "examctl review-session show RS-MATH1-OCT -o csv --delimiter ';' > results.csv",
    'examctl review-session show RS-MATH1-OCT -o xlsx > results.xlsx',
    'examctl review-session show RS-MATH1-OCT --json',
    'examctl review-session show RS-MATH1-OCT --show-pin',
  ],
  options: REVIEW_SESSION_SHOW_OPTIONS,
  takesDryRun: true,
});
