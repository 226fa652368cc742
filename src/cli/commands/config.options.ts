import { NO_OPTIONS, argument, option, type OptionsOf, brief } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';
import type { GlobalOptions } from '../../flags/global-options.js';

/** --base-url, --token-file, --concurrency and --rate are the global options, stored in the profile. */
export const CONFIG_SET_PROFILE_OPTIONS = [argument('name', '<name>', 'profile name'), brief('make it the default profile', option('--default', 'make it the default profile'))] as const;
export type ConfigSetProfileOptions = OptionsOf<typeof CONFIG_SET_PROFILE_OPTIONS> & GlobalOptions;

/** `config remove` and `config use`: one profile, by name. */
export const CONFIG_PROFILE_NAME = [argument('name', '<name>', 'profile name')] as const;
export type ConfigProfileNameOptions = OptionsOf<typeof CONFIG_PROFILE_NAME> & GlobalOptions;

export const CONFIG_SET_PROFILE = declareCommand({
  path: ['config', 'set-profile'],
  description: 'create or update a profile: --base-url <url> [--token-file <path>] [--concurrency n] [--rate n] [--default]',
  examples: [
    'examctl config set-profile prod --base-url https://exam.example.com --token-file ~/.config/examctl/prod.token',
    'examctl config set-profile staging --base-url https://staging.example.com --concurrency 4 --rate 600 --default',
  ],
  options: CONFIG_SET_PROFILE_OPTIONS,
});

export const CONFIG_LIST = declareCommand({
  path: ['config', 'list'],
  description: 'list the profiles (* marks the default)',
  examples: ['examctl config list', 'examctl config list --json'],
  options: NO_OPTIONS,
  takesDryRun: true,
});

export const CONFIG_REMOVE = declareCommand({
  path: ['config', 'remove'],
  description: 'remove a profile (its token file is left in place)',
  examples: ['examctl config remove staging', 'examctl config list'],
  options: CONFIG_PROFILE_NAME,
});

export const CONFIG_USE = declareCommand({
  path: ['config', 'use'],
  description: 'make a profile the default',
  examples: ['examctl config use prod', 'examctl config use staging'],
  options: CONFIG_PROFILE_NAME,
});

export const CONFIG_SHOW = declareCommand({
  path: ['config', 'show'],
  description: 'the config file path, the default profile and every profile',
  examples: ['examctl config show', 'examctl config show --json'],
  options: NO_OPTIONS,
  takesDryRun: true,
});
