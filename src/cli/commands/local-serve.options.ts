import type { GlobalOptions } from '../global-options.js';
import { option, parsed, portNumber, type OptionsOf } from '../option-table.js';

export const LOCAL_SERVE_OPTIONS = [
  option('--host <host>', 'address to bind', '127.0.0.1'),
  parsed('--port <n>', 'port (0: any free port, printed on stderr)', portNumber, 0),
  // SPEC and seed are checked by the command (src/server/faults.ts): a table loads nothing but commander.
  option('--faults <spec>', 'inject faults: comma list of 429:P%, 500:P%, 503:P%, reset:P%, lost:P%, latency:A-Bms'),
  option('--faults-seed <n>', 'seed of the fault draws (default: random, printed on stderr)'),
] as const;

export type LocalServeOptions = OptionsOf<typeof LOCAL_SERVE_OPTIONS> & GlobalOptions;
