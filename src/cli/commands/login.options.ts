import type { GlobalOptions } from '../global-options.js';
import { option, type OptionsOf } from '../option-table.js';

export const LOGIN_OPTIONS = [
  option('--with-token', 'read the token from stdin instead of prompting (scripts: `examctl login --with-token < token.txt`)'),
  option('--no-verify', 'store the token without checking it against the service first (e.g. the service is not reachable from here)'),
] as const;

export type LoginOptions = OptionsOf<typeof LOGIN_OPTIONS> & GlobalOptions;
