import type { GlobalOptions } from '../global-options.js';
import { option, type OptionsOf } from '../option-table.js';
import { FILE_OPTIONS } from './file-options.js';

export const USER_SYNC_OPTIONS = [
  option('-f, --file <path>', 'users as CSV, .xlsx, JSON array or NDJSON (API field names as columns/keys)'),
  ...FILE_OPTIONS,
] as const;

export type UserSyncOptions = OptionsOf<typeof USER_SYNC_OPTIONS> & GlobalOptions;
