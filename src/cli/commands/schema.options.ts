import type { GlobalOptions } from '../global-options.js';
import { OUT_OPTION } from './out-option.js';
import { argument, type OptionsOf } from '../option-table.js';

export const SCHEMA_OPTIONS = [argument('kind', '<kind>', 'users, candidates, sittings, collection or invigilators'), OUT_OPTION] as const;

export type SchemaOptions = OptionsOf<typeof SCHEMA_OPTIONS> & GlobalOptions;
