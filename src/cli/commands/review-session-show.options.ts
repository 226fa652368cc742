import type { GlobalOptions } from '../global-options.js';
import { argument, choice, type OptionsOf } from '../option-table.js';

export const REVIEW_SESSION_SHOW_OPTIONS = [
  argument('externalId', '<externalId>', 'review session external id'),
  choice(
    '-o, --output <format>',
    'table (header, results, counts per status, mean score), json (the Content as sent) or csv (one row per result, spreadsheet-safe)',
    ['table', 'json', 'csv'],
    'table',
  ),
] as const;

export type ReviewSessionShowOptions = OptionsOf<typeof REVIEW_SESSION_SHOW_OPTIONS> & GlobalOptions;
