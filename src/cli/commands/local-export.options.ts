import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { OUT_OPTION } from './out-option.js';

export type LocalExportOptions = CommandOptions<typeof LOCAL_EXPORT>;

export const LOCAL_EXPORT = declareCommand({
  path: ['local', 'export'],
  description: 'print the store as a world file on stdout (stable order; passwords only as hashes)',
  examples: [
    'examctl local export > world.json',
    '# later, or on another machine: the same store again',
    'examctl local init --seed world.json --force',
  ],
  options: [OUT_OPTION] as const,
  takes: ['--store', '--dry-run'],
});
