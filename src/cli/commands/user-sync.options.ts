import { allKept, grouped, HELP_GROUP, option, brief, parsed } from '../../flags/option-table.js';
import { countOrPercent } from '../../flags/flag-values.js';
import { excluding, needing } from '../../flags/flag-pairs.js';
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

/** A flag of a file run: without --file user sync asks for one user, and the flag would be dropped. */
const FILE_RUN = 'the export to sync (without it, user sync asks for one user)';

/** The flags of the sync memory (docs/sync.md): `run` takes them out as one. */
export const USER_SYNC_MEMORY_OPTIONS = [
  REALLY_NEW_IDS_OPTION,
  ...needing(['--file'], FILE_RUN, [
    CHANGED_ONLY_OPTION,
    // After CHANGED_ONLY_OPTION: in its group (HELP_GROUP.nightlySync) without naming it.
    ...excluding(
      ['--only-failed', '--only-new', '--only-existing'],
      '--disable-missing needs every user of the whole file sent or judged unchanged',
      [
        brief(
          'the file is everyone: disable users it no longer holds',
          option(
            '--disable-missing',
            'the file is the whole population: disable the login of users examctl synced to this target before that it no longer holds',
          ),
        ),
      ] as const,
    ),
    brief(
      'the file is all of this population (e.g. staff)',
      option(
        '--population <name>',
        'the file is the whole of this population (e.g. staff, students: two exports to one target): --disable-missing disables only users last synced with the same --population (docs/sync.md)',
      ),
      'all users',
    ),
    ...needing(['--disable-missing'], undefined, [
      brief(
        'refuse to disable over N users or P%',
        parsed(
          '--max-disable <n|p%>',
          'with --disable-missing: refuse (exit 2, nothing sent) to disable more than N users or P% of those remembered (default 10%, or up to 100 but at most 25%)',
          countOrPercent('--max-disable'),
        ),
        '10%; 100 within 25%',
      ),
      brief(
        'also disable users created after the file',
        option(
          '--allow-disable-recent',
          'with --disable-missing: also disable users examctl created in runs later than every user the file holds (otherwise refused, exit 2, nothing sent: an older export run again? docs/sync.md, "Stale input")',
        ),
      ),
    ] as const),
  ] as const),
  ALLOW_OLD_FILE_OPTION,
  ...needing(['--file'], FILE_RUN, [
    brief(
      'movers: remove links and flags the file no longer gives',
      option(
        '--prune-memberships',
        'movers: send a DELETE for each hierarchy link, and false for each permission flag, examctl last sent this target that the file no longer gives (docs/sync.md)',
      ),
    ),
    ...needing(['--prune-memberships'], undefined, [
      brief(
        'refuse if over N users or P% lose links',
        parsed(
          '--max-prune <n|p%>',
          'with --prune-memberships: refuse (exit 2, nothing sent) when more than N users or P% of those remembered would lose a link or flag (default 10%, or up to 100 but at most 25%)',
          countOrPercent('--max-prune'),
        ),
        '10%; 100 within 25%',
      ),
    ] as const),
    ...needing(['--changed-only', '--disable-missing', '--prune-memberships'], undefined, [REQUIRE_MEMORY_OPTION]),
    ...ONLY_NEW_OR_EXISTING_OPTIONS,
  ] as const),
  SYNC_DIR_OPTION,
] as const;

const USER_SYNC_OPTIONS = allKept([
  ...grouped(HELP_GROUP.input, [
    brief(
      'users: CSV, .xlsx, JSON array or NDJSON',
      option(
        '-f, --file <path>',
        "users as CSV, .xlsx, JSON array or NDJSON: API field names as columns/keys, or the export's own names read with --map/--map-file",
      ),
      'prompt for one user',
    ),
  ] as const),
  ...FILE_OPTIONS,
  ...USER_SYNC_MEMORY_OPTIONS,
  PLAN_OUT_OPTION,
] as const);

export type UserSyncOptions = CommandOptions<typeof USER_SYNC>;

export const USER_SYNC = declareCommand({
  path: ['user', 'sync'],
  description:
    'create or update users with hierarchy memberships (POST /user, one call per user); on a terminal with no --file: prompts for one user',
  examples: [
    '# check every row, change nothing; errors are shown as file:line field code message',
    'examctl user sync --file users.csv --dry-run',
    '# send; result.csv holds your rows plus status, error_codes, error_messages',
    'examctl user sync --file users.csv --report result.csv',
    '# fix the failed rows in result.csv, then send only those again',
    'examctl user sync --file result.csv --only-failed --report retry.csv',
    '# nightly from the full export: send changes only, disable leavers, drop links the file dropped (docs/sync.md)',
    'examctl user sync --file export.csv --changed-only --disable-missing --prune-memberships --yes --report sync.csv',
    '# on a terminal: asks for one user (role from a list on the local target)',
    'examctl user sync',
  ],
  options: USER_SYNC_OPTIONS,
  takes: [...TARGET_FLAGS, ...SENDING_FLAGS],
  reads: 'users',
  resume: 'rerun',
  storeKeys: 'users',
});
