import { grouped, HELP_GROUP, kept, option, brief } from '../../flags/option-table.js';
import { excluding } from '../../flags/flag-pairs.js';

/** Where sync memories live (docs/sync.md); every command that reads or feeds one takes it. */
export const [SYNC_DIR_OPTION] = grouped(HELP_GROUP.nightlySync, [
  brief(
    undefined,
    option(
      '--sync-dir <dir|url>',
      'where sync memories are kept: a directory, or the http(s):// address of a state service speaking Terraform\'s HTTP backend protocol (GitLab\'s managed state; docs/sync.md, "A state service"); env EXAMCTL_SYNC_DIR; default "synced" beside the runs directory',
    ),
    'synced/ by the runs dir',
  ),
] as const);

/** --changed-only, the nightly sync's flag, and --allow-old-file (src/sync/replayed-file.ts). */
export const [CHANGED_ONLY_OPTION, ALLOW_OLD_FILE_OPTION] = grouped(HELP_GROUP.nightlySync, [
  brief(
    'send only records changed since the last acknowledged run',
    option(
      '--changed-only',
      'send only records whose request differs from the last one this target acknowledged (the sync memory, docs/sync.md); the others are reported ok, unchanged, not sent',
    ),
  ),
  brief(
    'run a file an older run read again',
    option(
      '--allow-old-file',
      'run a file byte for byte the one an older run (of the population) read, though its newest run read another (otherwise refused, exit 2, nothing sent: an old night\'s file run again? docs/sync.md, "Stale input"); user sync: send an older run\'s rows a later run left otherwise',
    ),
  ),
] as const);

/** --require-memory: a nightly job that must not run as a first night (docs/ci.md). */
export const [REQUIRE_MEMORY_OPTION] = grouped(HELP_GROUP.nightlySync, [
  kept(
    brief(
      'refuse (exit 2) when there is no sync memory for this population',
      option(
        '--require-memory',
        'with --changed-only, --disable-missing or --prune-memberships: refuse (exit 2, nothing sent) when this target has no sync memory, or none for this --population (a lost CI cache), naming where it was looked for, the populations it holds and the ways back',
      ),
    ),
    { notKept: 'a check of the first run (a memory must exist); a resume has the memory that run started' },
  ),
] as const);

/** --only-new and --only-existing: docs/sync.md, "New and existing" (sync/known-ids.ts). */
export const ONLY_NEW_OR_EXISTING_OPTIONS = grouped(HELP_GROUP.nightlySync, [
  ...excluding(['--only-existing'], 'each leaves out what the other sends', [
    brief(
      'send only records the target does not have yet',
      option(
        '--only-new',
        'send only records the target does not have (the store, or on a remote target the sync memory, says which); the others are reported ok, action left, not sent. Refused (exit 2) on a remote target without a memory',
      ),
    ),
  ] as const),
  option(
    '--only-existing',
    'send only records the target has already (the store, or on a remote target the sync memory, says which); the others are reported ok, action left, not sent. Refused (exit 2) on a remote target without a memory',
  ),
] as const);

/** docs/input-formats.md, "Leading zeros"; src/sync/lost-zeros.ts. */
export const [REALLY_NEW_IDS_OPTION] = grouped(HELP_GROUP.request, [
  brief(
    'ids alike but for leading zeros: other ones',
    option(
      '--really-new-ids',
      'the ids are really new: new ids that equal ids of users, candidates or schedules examctl sent this target with their leading zeros removed (4000 for 004000), or two ids of the file alike but for them, are really other users or schedules: send them (otherwise refused: docs/input-formats.md, "Leading zeros")',
    ),
    'refused',
  ),
] as const);
