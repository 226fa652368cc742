import { argument, type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';
import { OUT_OPTION } from './out-option.js';

export const SCHEMA_OPTIONS = [argument('kind', '<kind>', 'users, candidates, sittings, collection or invigilators'), OUT_OPTION] as const;

export type SchemaOptions = OptionsOf<typeof SCHEMA_OPTIONS> & GlobalOptions;

export const SCHEMA = declareCommand({
  path: ['schema'],
  description: "print the JSON Schema (2020-12) of a kind's JSON input file, for editors to check it",
  examples: [
    'examctl schema users > users.schema.json',
    '# then in users.json: { "$schema": "./users.schema.json", ... } or your editor\'s schema mapping',
    'examctl schema sittings',
  ],
  options: SCHEMA_OPTIONS,
  takesDryRun: true,
});
