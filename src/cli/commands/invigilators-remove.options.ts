import { allKept, argument, option, brief } from '../../flags/option-table.js';
import { PLAN_OUT_OPTION } from './plan-option.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { MAP_FILE_OPTION, MAP_OPTION, ONLY_FAILED_NEEDS, SHEET_OPTIONS } from './file-options.js';
import { needing } from '../../flags/flag-pairs.js';
import { SENDING_FLAGS, TARGET_FLAGS } from '../../flags/taken-flags.js';

const INVIGILATORS_REMOVE_OPTIONS = allKept([
  argument('scheduleExtId', '<scheduleExtId>', 'the schedule'),
  argument('userExtIds', '[userExtId...]', 'invigilator user external ids'),
  brief(
    'ids: lines, a CSV/.xlsx column or a JSON array',
    option('-f, --file <path>', 'ids: one per line, a CSV or .xlsx column (UserExtId), or a JSON array'),
    'the ids given',
  ),
  ...SHEET_OPTIONS,
  MAP_OPTION,
  MAP_FILE_OPTION,
  ...needing(['--file'], ONLY_FAILED_NEEDS, [
    brief(
      'with a run report as --file: only ids whose status is not ok',
      option(
        '--only-failed',
        'with a run report (from --report x.csv or x.xlsx) as --file: only the ids whose status is not ok',
      ),
    ),
  ] as const),
  brief(
    'an id not an invigilator (319) is ok: a retry exits 0',
    option(
      '--missing-ok',
      'an id that is not an invigilator of the schedule (the service\'s 319) is ok, "already not an invigilator", not failed: a retried job exits 0',
    ),
    'failed',
  ),
  PLAN_OUT_OPTION,
] as const);

export type InvigilatorsRemoveOptions = CommandOptions<typeof INVIGILATORS_REMOVE>;

export const INVIGILATORS_REMOVE = declareCommand({
  path: ['invigilators', 'remove'],
  description: 'remove invigilators from a schedule (DELETE /schedule/{id}/invigilators)',
  examples: [
    'examctl invigilators remove S-FUTURE inv-1 inv-2',
    "# on a terminal without ids: tick them in a list of the schedule's invigilators (local) or type them (remote)",
    'examctl invigilators remove S-FUTURE',
    'examctl invigilators remove S-FUTURE --file leavers.txt --report result.csv',
    '# a CI job that may run twice: an id already removed is ok',
    'examctl invigilators remove S-FUTURE inv-1 inv-2 --missing-ok --yes',
  ],
  options: INVIGILATORS_REMOVE_OPTIONS,
  takes: [...TARGET_FLAGS, ...SENDING_FLAGS],
  reads: 'ids',
  resume: 'rerun',
});
