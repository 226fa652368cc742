import { option, brief } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';

const LOGIN_OPTIONS = [
  option(
    '--with-token',
    'read the token from stdin instead of prompting (scripts: `examctl login --with-token < token.txt`)',
  ),
  brief(
    'store the token without checking it against the service',
    option(
      '--no-verify',
      'store the token without checking it against the service first (e.g. the service is not reachable from here)',
    ),
  ),
] as const;

export type LoginOptions = CommandOptions<typeof LOGIN>;

export const LOGIN = declareCommand({
  path: ['login'],
  description:
    'prompt for the EAPI token (masked: each character shows as *), check it against the service, and store it beside the config, readable by you only (0600; on Windows the folder access list) for --profile (or the default)',
  examples: [
    'examctl login',
    '# create the profile on the way',
    'examctl login --profile prod --base-url https://exam.example.com',
    '# scripts: the token on stdin (checked against the service before it is stored)',
    'examctl login --profile prod --with-token < /run/secrets/exam-token',
    '# the service is not reachable from here: store it unchecked',
    'examctl login --profile prod --no-verify',
  ],
  options: LOGIN_OPTIONS,
  takes: ['--profile', '--base-url', '--allow-insecure-http'],
});
