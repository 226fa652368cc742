import type { GlobalOptions } from '../global-options.js';
import type { OptionsOf } from '../option-table.js';
import { SYNC_DIR_OPTION } from './sync-options.js';

export const SYNCED_SHOW_OPTIONS = [SYNC_DIR_OPTION] as const;
export const SYNCED_FORGET_OPTIONS = [SYNC_DIR_OPTION] as const;

export type SyncedShowOptions = OptionsOf<typeof SYNCED_SHOW_OPTIONS> & GlobalOptions;
export type SyncedForgetOptions = OptionsOf<typeof SYNCED_FORGET_OPTIONS> & GlobalOptions;
