import { kept, allKept, choice, grouped, HELP_GROUP, mandatory, option, type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';
import { FILE_OPTIONS } from './file-options.js';
import { CHANGED_ONLY_OPTION, REQUIRE_MEMORY_OPTION, SYNC_DIR_OPTION } from './sync-options.js';

/** The file of schedule requests: `schedule push` reads it, `synced adopt-schedules` too. */
export const SCHEDULE_FILE_OPTIONS = grouped(HELP_GROUP.input, [
  mandatory('-f, --file <path>', 'candidates or sittings CSV or .xlsx, or JSON request(s) / candidates: API field names, or the export\'s own read with --map/--map-file'),
  option('--schedule <file.json>', 'schedule fields from a JSON object (the Schedule object, or a request with Schedule)'),
] as const);

/** What makes each schedule request beside the file: the workflow, --upsert, and the schedule fields. */
export const SCHEDULE_REQUEST_OPTIONS = [
  ...grouped(HELP_GROUP.request, [
    choice('--workflow <workflow>', 'DEFAULT or EXTERNAL_ATTEMPTS (candidates then need AttemptExtId)', ['DEFAULT', 'EXTERNAL_ATTEMPTS']),
    option('--upsert', 'update a schedule whose ScheduleExtId exists instead of failing (activated schedules cannot be updated)'),
  ] as const),
  ...grouped(HELP_GROUP.scheduleFields, [
    option('--schedule-id <id>', 'ScheduleExtId (when absent, a real run names the new schedule itself: docs/runs.md, "An id examctl chooses")'),
    option('--assessment <id>', 'AssessmentExtId: the assessment to sit'),
    option('--title <title>', 'schedule Title (generated when absent)'),
    option('--start <datetime>', 'StartDateTime, RFC 3339 with a zone, e.g. 2026-12-01T09:00:00Z'),
    option('--end <datetime>', 'EndDateTime (default: start + assessment duration + 60 min)'),
    option('--group <id>', 'GroupExtId: hierarchy group the candidates are attached to (created if new)'),
    option('--group-name <name>', 'GroupName: title of that group'),
    option('--schedule-group <id>', 'ScheduleGroupExtId: hierarchy the schedule belongs to (default: root)'),
    option('--schedule-group-name <name>', 'ScheduleGroupName: title of that hierarchy'),
    option('--owner <username>', 'Owner: user name of the schedule owner (default: the API settings owner)'),
    kept(
      option('--pin <pin>', 'PIN for candidates: four digits expected (string(4); other values are sent with a warning); a command line shows in `ps` to every user of the machine: prefer --pin-file or EXAMCTL_PIN'),
      { notKept: 'a secret: its SHA-256 is kept, and runs resume asks for --pin again' },
    ),
    kept(option('--pin-file <file>', 'read the PIN from this file (one line; keep it 0600); EXAMCTL_PIN gives it too; on a terminal a missing PIN is asked'), {
      notKept: 'where the PIN came from: runs resume asks for it again',
    }),
    option('--proctoring', 'UseProctoringService true (default: the assessment option)'),
    option('--no-proctoring', 'UseProctoringService false'),
    option('--proctoring-template <id>', 'ProctoringServiceTemplateExternalId (default: the global template)'),
    option('--lock-on-connection-loss', 'LockExamOnConnectionLoss true'),
    option('--no-lock-on-connection-loss', 'LockExamOnConnectionLoss false'),
    option('--keycode', 'UseKeyCode true: candidates log in with keycode slips'),
    option('--no-keycode', 'UseKeyCode false'),
    option('--auto-cleanup', 'enableAutomaticDataCleanup true'),
    option('--no-auto-cleanup', 'enableAutomaticDataCleanup false'),
    option('--cleanup-notice-period <value>', 'dataCleanupNoticePeriod, passed through as given'),
  ] as const),
] as const;

/** Every flag is kept by the run journal (runs resume continues with it) unless it says otherwise. */
export const SCHEDULE_PUSH_OPTIONS = allKept([
  ...SCHEDULE_FILE_OPTIONS,
  ...FILE_OPTIONS,
  ...SCHEDULE_REQUEST_OPTIONS,
  CHANGED_ONLY_OPTION,
  REQUIRE_MEMORY_OPTION,
  SYNC_DIR_OPTION,
] as const);

export type SchedulePushOptions = OptionsOf<typeof SCHEDULE_PUSH_OPTIONS> & GlobalOptions;

export const SCHEDULE_PUSH = declareCommand({
  path: ['schedule', 'push'],
  description:
    'create or update schedules with candidates (POST /schedule, one call per schedule). ' +
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
  takesDryRun: true,
  takesReport: true,
  resume: 'rerun',
});
