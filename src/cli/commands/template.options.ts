import type { GlobalOptions } from '../global-options.js';
import { OUT_OPTION } from './out-option.js';
import { argument, choice, type OptionsOf } from '../option-table.js';
import { NO_BOM_OPTION } from './file-options.js';

export const TEMPLATE_OPTIONS = [
  argument('kind', '<kind>', 'users, candidates, sittings, collection or invigilators'),
  choice('-o, --output <format>', 'csv (the header row), xlsx (text columns and a Columns sheet describing each) or json (one example record)', ['csv', 'xlsx', 'json'], 'csv'),
  OUT_OPTION,
  NO_BOM_OPTION,
] as const;

export type TemplateOptions = OptionsOf<typeof TEMPLATE_OPTIONS> & GlobalOptions;
