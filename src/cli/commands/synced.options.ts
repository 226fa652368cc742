import { type OptionsOf } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';
import { SYNC_DIR_OPTION } from './sync-options.js';

export const SYNCED_SHOW_OPTIONS = [SYNC_DIR_OPTION] as const;
export const SYNCED_FORGET_OPTIONS = [SYNC_DIR_OPTION] as const;

export type SyncedShowOptions = OptionsOf<typeof SYNCED_SHOW_OPTIONS> & GlobalOptions;
export type SyncedForgetOptions = OptionsOf<typeof SYNCED_FORGET_OPTIONS> & GlobalOptions;

export const SYNCED_SHOW = declareCommand({
  path: ['synced', 'show'],
  description: 'every sync memory: target, kind, ids remembered, leavers disabled, newest run, file',
  examples: ['examctl synced show', 'examctl synced show --json'],
  options: SYNCED_SHOW_OPTIONS,
  takesDryRun: true,
});

export const SYNCED_FORGET = declareCommand({
  path: ['synced', 'forget'],
  description: "forget the target's sync memory (the usual target flags choose it): the next sync sends every record",
  examples: ['examctl synced forget --profile prod', 'examctl synced forget --target local --store ./store'],
  options: SYNCED_FORGET_OPTIONS,
});
