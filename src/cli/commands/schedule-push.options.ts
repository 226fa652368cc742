import { kept, allKept, choice, grouped, HELP_GROUP, mandatory, option, brief } from '../../flags/option-table.js';
import { needing } from '../../flags/flag-pairs.js';
import { PLAN_OUT_OPTION } from './plan-option.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { FILE_OPTIONS } from './file-options.js';
import {
  ALLOW_OLD_FILE_OPTION,
  CHANGED_ONLY_OPTION,
  ONLY_NEW_OR_EXISTING_OPTIONS,
  REALLY_NEW_IDS_OPTION,
  REQUIRE_MEMORY_OPTION,
  SYNC_DIR_OPTION,
} from './sync-options.js';
import { SENDING_FLAGS, TARGET_FLAGS } from '../../flags/taken-flags.js';

/** The file of schedule requests: `schedule push` reads it, `synced adopt-schedules` too. */
export const SCHEDULE_FILE_OPTIONS = grouped(HELP_GROUP.input, [
  brief(
    'candidates or sittings: CSV, .xlsx or JSON request(s)',
    mandatory(
      '-f, --file <path>',
      "candidates or sittings CSV or .xlsx, or JSON request(s) / candidates: API field names, or the export's own read with --map/--map-file",
    ),
  ),
  kept(
    option(
      '--schedule <file.json>',
      'schedule fields from a JSON object (the Schedule object, or a request with Schedule)',
    ),
    'with-digest',
  ),
] as const);

/** The flags of the Schedule's fields (context/settings.ts, FLAG_FIELDS), with --pin-file. */
export const SCHEDULE_FIELD_OPTIONS = grouped(HELP_GROUP.scheduleFields, [
  brief(
    undefined,
    option(
      '--schedule-id <id>',
      'ScheduleExtId (when absent, a real run names the new schedule itself: docs/runs.md, "An id examctl chooses")',
    ),
    'a new id examctl names',
  ),
  brief(
    'AssessmentExtId: the assessment to sit',
    option('--assessment <id>', 'AssessmentExtId: the assessment to sit'),
  ),
  brief(undefined, option('--title <title>', 'schedule Title (generated when absent)'), 'generated'),
  brief(
    'StartDateTime, e.g. 2026-12-01T09:00:00Z',
    option('--start <datetime>', 'StartDateTime, RFC 3339 with a zone, e.g. 2026-12-01T09:00:00Z'),
  ),
  brief(
    undefined,
    option('--end <datetime>', 'EndDateTime (default: start + assessment duration + 60 min)'),
    'start + duration + 60 min',
  ),
  brief(
    "GroupExtId: the candidates' group (created if new)",
    option('--group <id>', 'GroupExtId: hierarchy group the candidates are attached to (created if new)'),
  ),
  brief('GroupName: title of that group', option('--group-name <name>', 'GroupName: title of that group')),
  brief(
    "ScheduleGroupExtId: the schedule's hierarchy",
    option('--schedule-group <id>', 'ScheduleGroupExtId: hierarchy the schedule belongs to (default: root)'),
    'root',
  ),
  brief(
    'ScheduleGroupName: title of that hierarchy',
    option('--schedule-group-name <name>', 'ScheduleGroupName: title of that hierarchy'),
  ),
  brief(
    'Owner: user name of the owner',
    option('--owner <username>', 'Owner: user name of the schedule owner (default: the API settings owner)'),
    'API settings owner',
  ),
  kept(
    brief(
      'PIN for candidates (shows in ps: prefer --pin-file)',
      option(
        '--pin <pin>',
        'PIN for candidates: four digits expected (string(4); other values are sent with a warning); a command line shows in `ps` to every user of the machine: prefer --pin-file or EXAMCTL_PIN',
      ),
    ),
    { notKept: 'a secret: its SHA-256 is kept, and runs resume asks for --pin again' },
  ),
  kept(
    brief(
      'read the PIN from this file (or EXAMCTL_PIN)',
      option(
        '--pin-file <file>',
        'read the PIN from this file (one line; keep it 0600); EXAMCTL_PIN gives it too; on a terminal a missing PIN is asked',
      ),
      'asked',
    ),
    {
      notKept: 'where the PIN came from: runs resume asks for it again',
    },
  ),
  brief(
    'UseProctoringService',
    option('--proctoring', 'UseProctoringService true (default: the assessment option)'),
    "the assessment's option",
  ),
  option('--no-proctoring', 'UseProctoringService false'),
  brief(
    undefined,
    option('--proctoring-template <id>', 'ProctoringServiceTemplateExternalId (default: the global template)'),
    'global template',
  ),
  brief(
    'LockExamOnConnectionLoss',
    option('--lock-on-connection-loss', 'LockExamOnConnectionLoss true'),
    "the service's",
  ),
  option('--no-lock-on-connection-loss', 'LockExamOnConnectionLoss false'),
  brief(
    'UseKeyCode: log in with keycode slips',
    option('--keycode', 'UseKeyCode true: candidates log in with keycode slips'),
    "the service's",
  ),
  option('--no-keycode', 'UseKeyCode false'),
  brief('enableAutomaticDataCleanup', option('--auto-cleanup', 'enableAutomaticDataCleanup true'), "the service's"),
  option('--no-auto-cleanup', 'enableAutomaticDataCleanup false'),
  option('--cleanup-notice-period <value>', 'dataCleanupNoticePeriod, passed through as given'),
] as const);

/** What makes each schedule request beside the file: the workflow, --upsert, and the schedule fields. */
export const SCHEDULE_REQUEST_OPTIONS = [
  ...grouped(HELP_GROUP.request, [
    brief(
      undefined,
      choice('--workflow <workflow>', 'DEFAULT or EXTERNAL_ATTEMPTS (candidates then need AttemptExtId)', [
        'DEFAULT',
        'EXTERNAL_ATTEMPTS',
      ]),
      'DEFAULT',
    ),
    brief(
      'update a schedule whose ScheduleExtId exists',
      option(
        '--upsert',
        'update a schedule whose ScheduleExtId exists instead of failing (activated schedules cannot be updated)',
      ),
    ),
  ] as const),
  ...SCHEDULE_FIELD_OPTIONS,
] as const;

/** The flags after the request's: the sync memory's (docs/sync.md) and --clear-pin; `run` takes them out as one. */
export const SCHEDULE_PUSH_SYNC_OPTIONS = [
  REALLY_NEW_IDS_OPTION,
  // Unchanged schedules are left out only when the rest can be sent again as updates.
  ...needing(['--upsert'], 'a schedule that changed is sent again as an update', [CHANGED_ONLY_OPTION]),
  ALLOW_OLD_FILE_OPTION,
  option(
    '--clear-pin',
    'send no PIN where an earlier run set one: the upsert clears it (docs/sync.md, "Fields left out")',
  ),
  ...needing(['--changed-only'], undefined, [REQUIRE_MEMORY_OPTION]),
  ONLY_NEW_OR_EXISTING_OPTIONS[0],
  ...needing(['--upsert'], 'a schedule the target has is sent again as an update', [ONLY_NEW_OR_EXISTING_OPTIONS[1]]),
  SYNC_DIR_OPTION,
] as const;

const SCHEDULE_PUSH_OPTIONS = allKept([
  ...SCHEDULE_FILE_OPTIONS,
  ...FILE_OPTIONS,
  ...SCHEDULE_REQUEST_OPTIONS,
  ...SCHEDULE_PUSH_SYNC_OPTIONS,
  PLAN_OUT_OPTION,
] as const);

export type SchedulePushOptions = CommandOptions<typeof SCHEDULE_PUSH>;

export const SCHEDULE_PUSH = declareCommand({
  path: ['schedule', 'push'],
  description:
    'create or update schedules with candidates (one POST /schedule per schedule). ' +
    'A candidates CSV/JSON gets its schedule from flags or --schedule; without --schedule-id every run creates a new schedule. ' +
    'A sittings CSV (rows with schedule columns such as ScheduleExtId, AssessmentExtId, StartDateTime) is grouped by ScheduleExtId into one request each, ' +
    'flags giving defaults for absent columns. A JSON object with Schedule and Candidates (or an array of them) is sent as is.',
  examples: [
    '# a sittings CSV: one schedule per ScheduleExtId; check it first, then send with a report',
    'examctl schedule push --file sittings.csv --dry-run',
    'examctl schedule push --file sittings.csv --report result.csv',
    '# a candidates CSV: the schedule comes from flags (on a terminal, missing ones are asked)',
    'examctl schedule push --file candidates.csv --schedule-id S-MATH1-DEC --assessment A-MATH-1 \\\n      --start 2026-12-14T09:00:00Z --group H-NORTH-DEC --group-name "North campus - December"',
    '# after fixing the failed rows in result.csv: send only those again',
    'examctl schedule push --file result.csv --only-failed --report retry.csv',
  ],
  options: SCHEDULE_PUSH_OPTIONS,
  takes: [...TARGET_FLAGS, ...SENDING_FLAGS],
  reads: 'schedules',
  resume: 'rerun',
  storeKeys: 'schedules',
});
