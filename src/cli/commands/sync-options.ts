import { grouped, HELP_GROUP, option } from '../option-table.js';

/** Where sync memories live (docs/sync.md); every command that reads or feeds one takes it. */
export const [SYNC_DIR_OPTION] = grouped(HELP_GROUP.nightlySync, [option('--sync-dir <dir>', 'where sync memories are kept (env EXAMCTL_SYNC_DIR; default "synced" beside the runs directory, docs/sync.md)')] as const);

/** --changed-only: the nightly sync's flag, on user sync and schedule push. */
export const [CHANGED_ONLY_OPTION] = grouped(HELP_GROUP.nightlySync, [option(
  '--changed-only',
  'send only records whose request differs from the last one this target acknowledged (the sync memory, docs/sync.md); the others are reported ok, unchanged, not sent',
  ),
] as const);
