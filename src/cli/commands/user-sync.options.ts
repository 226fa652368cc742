import type { GlobalOptions } from '../global-options.js';
import { option, type OptionsOf } from '../option-table.js';
import { FILE_OPTIONS } from './file-options.js';
import { CHANGED_ONLY_OPTION, SYNC_DIR_OPTION } from './sync-options.js';

export const USER_SYNC_OPTIONS = [
  option('-f, --file <path>', 'users as CSV, .xlsx, JSON array or NDJSON (API field names as columns/keys)'),
  ...FILE_OPTIONS,
  CHANGED_ONLY_OPTION,
  option('--disable-missing', 'the file is the whole population: disable the login of users examctl synced to this target before that it no longer holds'),
  option('--max-disable <n|p%>', 'with --disable-missing: refuse (exit 2, nothing sent) to disable more than N users or P% of those remembered (default 10%, at least 100)'),
  SYNC_DIR_OPTION,
] as const;

export type UserSyncOptions = OptionsOf<typeof USER_SYNC_OPTIONS> & GlobalOptions;
