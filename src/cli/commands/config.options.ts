import type { GlobalOptions } from '../global-options.js';
import { argument, option, type OptionsOf } from '../option-table.js';

/** --base-url, --token-file, --concurrency and --rate are the global options, stored in the profile. */
export const CONFIG_SET_PROFILE_OPTIONS = [argument('name', '<name>', 'profile name'), option('--default', 'make it the default profile')] as const;
export type ConfigSetProfileOptions = OptionsOf<typeof CONFIG_SET_PROFILE_OPTIONS> & GlobalOptions;

/** `config remove` and `config use`: one profile, by name. */
export const CONFIG_PROFILE_NAME = [argument('name', '<name>', 'profile name')] as const;
export type ConfigProfileNameOptions = OptionsOf<typeof CONFIG_PROFILE_NAME> & GlobalOptions;
