import { argument, choice, brief } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { OUT_OPTION } from './out-option.js';
import { NO_BOM_OPTION } from './file-options.js';
import { TARGET_FLAGS } from '../../flags/taken-flags.js';

const SCHEDULE_LINKS_OPTIONS = [
  argument(
    'scheduleExtId',
    '[scheduleExtId]',
    'the schedule whose links to list (on a terminal without it: picked from the store)',
  ),
  brief(
    'table, csv (a row per candidate) or json',
    choice(
      '-o, --output <format>',
      'table (on screen), csv (one row per candidate, formula-safe for a mail merge) or json',
      ['table', 'csv', 'json'],
      'table',
    ),
  ),
  OUT_OPTION,
  NO_BOM_OPTION,
] as const;

export type ScheduleLinksOptions = CommandOptions<typeof SCHEDULE_LINKS>;

export const SCHEDULE_LINKS = declareCommand({
  path: ['schedule', 'links'],
  description:
    "each candidate's StartupLink (and LaunchUrl with proctoring) of a schedule in the local store. " +
    'The integration API does not return links, so this reads the local target only.',
  examples: [
    'examctl schedule links S-MATH1-DEC',
    '# a formula-safe CSV for a mail merge',
    'examctl schedule links S-MATH1-DEC -o csv > links.csv',
    'examctl schedule links S-MATH1-DEC -o json',
  ],
  options: SCHEDULE_LINKS_OPTIONS,
  takes: [...TARGET_FLAGS, '--dry-run'],
});
