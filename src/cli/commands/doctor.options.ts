import { NO_OPTIONS } from '../../flags/option-table.js';
import { declareCommand } from '../command-declaration.js';

/** `doctor` takes only the global flags (they choose the target it checks). */
export const DOCTOR = declareCommand({
  path: ['doctor'],
  description: 'check the target: base URL or store, token set (never shown), reachable, token accepted, clock skew; exit 0 healthy, 3 not',
  examples: ['examctl doctor', 'examctl doctor --profile prod --json', 'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor'],
  options: NO_OPTIONS,
  takes: ['target', '--dry-run'],
});
