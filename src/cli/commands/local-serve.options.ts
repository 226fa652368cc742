import type { GlobalOptions } from '../global-options.js';
import { option, parsed, portNumber, type OptionsOf } from '../option-table.js';

export const LOCAL_SERVE_OPTIONS = [
  option('--host <host>', 'address to bind', '127.0.0.1'),
  parsed('--port <n>', 'port (0: any free port, printed on stderr)', portNumber, 0),
] as const;

export type LocalServeOptions = OptionsOf<typeof LOCAL_SERVE_OPTIONS> & GlobalOptions;
