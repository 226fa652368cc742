import type { GlobalOptions } from '../global-options.js';
import { option, type OptionsOf } from '../option-table.js';

export const LOCAL_INIT_OPTIONS = [
  option('--seed <world.json>', 'world file to start from'),
  option('--force', 'replace an existing store (everything in it is lost)'),
] as const;

export type LocalInitOptions = OptionsOf<typeof LOCAL_INIT_OPTIONS> & GlobalOptions;
