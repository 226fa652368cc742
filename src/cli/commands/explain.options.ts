import { argument } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';

export type ExplainOptions = CommandOptions<typeof EXPLAIN>;

export const EXPLAIN = declareCommand({
  path: ['explain'],
  description: 'print what an error code means: its cause and its fix (docs/errors.md lists every code)',
  examples: ['examctl explain E3020', 'examctl explain E2101 --json'],
  options: [argument('code', '<code>', "the code a message ended with, e.g. E3020, or a record's, e.g. 209")] as const,
  takes: ['--dry-run'],
});
