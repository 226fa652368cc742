import { option, brief } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { SYNC_DIR_OPTION } from './sync-options.js';

const LOCAL_INIT_OPTIONS = [
  brief(undefined, option('--seed <world.json>', 'world file to start from'), 'the demo world'),
  brief(
    'replace an existing store (everything in it is lost)',
    option('--force', 'replace an existing store (everything in it is lost)'),
  ),
  SYNC_DIR_OPTION,
] as const;

export type LocalInitOptions = CommandOptions<typeof LOCAL_INIT>;

export const LOCAL_INIT = declareCommand({
  path: ['local', 'init'],
  description: 'create the local store from a world file (default: the bundled demo world)',
  examples: [
    '# ./.examctl-store from the demo world (roles, hierarchies, assessments, schedules, review sessions)',
    'examctl local init',
    '# start over from your own world file (e.g. an earlier `local export`)',
    'examctl local init --seed world.json --force',
    'examctl --store /tmp/try-out local init',
  ],
  options: LOCAL_INIT_OPTIONS,
  takes: ['--store', '--dry-run'],
});
