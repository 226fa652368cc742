import { argument, brief, choice, option } from '../../flags/option-table.js';
import { excluding } from '../../flags/flag-pairs.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { OUT_OPTION } from './out-option.js';
import { NO_BOM_OPTION } from './file-options.js';

const TEMPLATE_OPTIONS = [
  argument('kind', '<kind>', 'users, candidates, sittings, collection or invigilators'),
  brief(
    'csv (header row; the default), xlsx (with a Columns sheet) or json',
    choice(
      '-o, --output <format>',
      'csv (the header row; the default), xlsx (text columns and a Columns sheet describing each) or json (one example record)',
      ['csv', 'xlsx', 'json'],
    ),
  ),
  OUT_OPTION,
  NO_BOM_OPTION,
  option(
    '--map-example',
    'print an example map file (--map-file) for the kind instead: every kind of entry (a column read as a field, a value table, a template, a fallback, Hierarchies with flags), with notes',
  ),
  ...excluding(['--map-example'], 'each prints a file: give one', [
    option(
      '--example',
      'print the example file of the README and the demo world instead (users and sittings: csv, collection: json), so the one-file executable has them too',
    ),
  ] as const),
] as const;

export type TemplateOptions = CommandOptions<typeof TEMPLATE>;

export const TEMPLATE = declareCommand({
  path: ['template'],
  description:
    'print an input file to fill in: users, candidates, sittings, collection or invigilators (csv, xlsx or json)',
  examples: [
    'examctl template users > users.csv',
    '# an export with its own headers needs no rewrite: map its columns, set what it lacks (docs/input-formats.md)',
    'examctl user sync --file export.csv --map "Student ID=ExternalId" --map "Given name=FirstName" --set Role=Candidate --date-format DD.MM.YYYY',
    '# a workbook: text columns (00456 stays 00456) and a Columns sheet describing each column',
    'examctl template sittings -o xlsx > sittings.xlsx',
    'examctl template candidates -o json > candidates.json',
    '# a map file to start from: value tables, computed fields, Hierarchies from Y/N columns',
    'examctl template users --map-example > users-map.json',
    "# the README's sittings, for the demo world (fixtures/sittings.csv in a clone)",
    'examctl template sittings --example --out sittings.csv',
  ],
  options: TEMPLATE_OPTIONS,
  takes: ['--dry-run'],
});
