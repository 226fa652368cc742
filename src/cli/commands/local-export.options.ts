import { type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';
import { OUT_OPTION } from './out-option.js';

export const LOCAL_EXPORT_OPTIONS = [OUT_OPTION] as const;

export type LocalExportOptions = OptionsOf<typeof LOCAL_EXPORT_OPTIONS> & GlobalOptions;

export const LOCAL_EXPORT = declareCommand({
  path: ['local', 'export'],
  description: 'print the store as a world file on stdout (stable order; passwords only as hashes)',
  examples: ['examctl local export > world.json', '# later, or on another machine: the same store again', 'examctl local init --seed world.json --force'],
  options: LOCAL_EXPORT_OPTIONS,
  takesDryRun: true,
});
