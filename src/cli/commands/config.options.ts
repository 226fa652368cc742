import { argument, brief, choice, grouped, option, repeatable, repeatableFields } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';

/** How exports are read and results written, kept in a profile (docs/input-formats.md, "Profiles"). */
export const PROFILE_SETTINGS = grouped('Settings kept in the profile', [
  brief(
    'map file record commands read exports with',
    option(
      '--map-file <map.json>',
      'the map file record commands read exports with (stored as an absolute path; checked now)',
    ),
  ),
  brief(
    'a column read as an API field; repeatable',
    repeatable(
      '--map <column=Field>',
      'a column read as an API field, e.g. --map "Student ID=ExternalId"; repeatable, added to the ones kept',
    ),
  ),
  brief(
    'a value for a field the export lacks; repeatable',
    repeatableFields(
      'a value for a field the export lacks, e.g. --set Role=Candidate; repeatable, added to the ones kept',
    ),
  ),
  brief(
    'date format, both ways, e.g. DD/MM/YYYY',
    option(
      '--date-format <format>',
      "the admin's date format, both ways: how exports write dates and how review-session show writes them, e.g. DD/MM/YYYY",
    ),
  ),
  brief(
    'IANA zone, both ways, e.g. Europe/London',
    option(
      '--timezone <zone>',
      "the admin's IANA zone, both ways: of the exports' local times and of review-session show's times, e.g. Europe/London",
    ),
  ),
  brief(
    'encoding of a CSV without BOM',
    option('--encoding <label>', 'CSV input without a BOM: its encoding, e.g. windows-1252'),
  ),
  brief(
    "csv output: ',', ';' or tab",
    choice(
      '--delimiter <delimiter>',
      "csv output with no input to answer (review-session show -o csv): ',', ';' or tab",
      [',', ';', 'tab'],
    ),
  ),
  brief(
    "csv output: '.' or ','",
    choice('--decimal-separator <separator>', "csv output (review-session show -o csv): '.' or ','", ['.', ',']),
  ),
  brief(
    'record commands run with --strict',
    option('--strict', "record commands: --strict on, unless a command's own flag says otherwise"),
  ),
  brief(
    'record commands skip unknown columns',
    option(
      '--ignore-unknown-columns',
      'record commands skip columns and keys that are not API fields, as their --ignore-unknown-columns does',
    ),
  ),
  brief(
    'remove a kept setting (map-file, set...); repeatable',
    repeatable(
      '--unset <setting>',
      'remove a kept setting: map-file, map, set, date-format, timezone, encoding, delimiter, decimal-separator, strict, ignore-unknown-columns, concurrency, rate; repeatable',
    ),
  ),
] as const);

export type ConfigSetProfileOptions = CommandOptions<typeof CONFIG_SET_PROFILE>;

/** `config remove` and `config use`: one profile, by name. */
const CONFIG_PROFILE_NAME = [argument('name', '<name>', 'profile name')] as const;
export type ConfigProfileNameOptions = CommandOptions<typeof CONFIG_REMOVE>;

export const CONFIG_SET_PROFILE = declareCommand({
  path: ['config', 'set-profile'],
  description:
    "create or update a profile: [--base-url <url>] [--token-file <path>] [--concurrency n] [--rate n] [--default], and the settings a nightly job would repeat (a command's own flag still wins); without a base URL, settings for the local engine",
  examples: [
    'examctl config set-profile prod --base-url https://exam.example.com --token-file ~/.config/examctl/prod.token',
    'examctl config set-profile staging --base-url https://staging.example.com --concurrency 4 --rate 600 --default',
    '# how the exports are read, and results written, without repeating the flags',
    'examctl config set-profile prod --map-file sis-map.json --set Role=Candidate --date-format DD/MM/YYYY --timezone Europe/London --encoding windows-1252',
    'examctl config set-profile prod --unset encoding',
    '# an admin on the local engine: settings only, no base URL',
    'examctl config set-profile admin --timezone Europe/London --ignore-unknown-columns --default',
  ],
  options: [
    argument('name', '<name>', 'profile name'),
    ...grouped('Profile', [option('--default', 'make it the default profile')] as const),
    ...PROFILE_SETTINGS,
  ] as const,
  // Its own --strict is the global flag, kept in the profile (the program parses it wherever it is given).
  takes: ['--base-url', '--token-file', '--concurrency', '--rate', '--allow-insecure-http', '--strict'],
});

export const CONFIG_LIST = declareCommand({
  path: ['config', 'list'],
  description: 'list the profiles (* marks the default)',
  examples: ['examctl config list', 'examctl config list --json'],
  options: [],
  takes: ['--dry-run'],
});

export const CONFIG_REMOVE = declareCommand({
  path: ['config', 'remove'],
  description: 'remove a profile (its token file is left in place)',
  examples: ['examctl config remove staging', 'examctl config list'],
  options: CONFIG_PROFILE_NAME,
  takes: [],
});

export const CONFIG_USE = declareCommand({
  path: ['config', 'use'],
  description: 'make a profile the default',
  examples: ['examctl config use prod', 'examctl config use staging'],
  options: CONFIG_PROFILE_NAME,
  takes: [],
});

export const CONFIG_SHOW = declareCommand({
  path: ['config', 'show'],
  description: 'the config file path, the default profile and every profile',
  examples: ['examctl config show', 'examctl config show --json'],
  options: [],
  takes: ['--dry-run'],
});
