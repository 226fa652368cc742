import { argument } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { OUT_OPTION } from './out-option.js';

export type SchemaOptions = CommandOptions<typeof SCHEMA>;

export const SCHEMA = declareCommand({
  path: ['schema'],
  description: "print the JSON Schema (2020-12) of a kind's JSON input file, for editors to check it",
  examples: [
    'examctl schema users > users.schema.json',
    '# then in users.json: { "$schema": "./users.schema.json", ... } or your editor\'s schema mapping',
    'examctl schema sittings',
  ],
  options: [argument('kind', '<kind>', 'users, candidates, sittings, collection or invigilators'), OUT_OPTION] as const,
  takes: ['--dry-run'],
});
