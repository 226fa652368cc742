import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { SYNC_DIR_OPTION } from './sync-options.js';
import { TARGET_FLAGS } from '../../flags/taken-flags.js';

/** `doctor`: the global flags choose the target it checks; --sync-dir, its memory's place. */
export const DOCTOR = declareCommand({
  path: ['doctor'],
  description:
    'check the target: base URL or store, token set (never shown), reachable, token accepted, clock skew; exit 0 healthy, 3 not',
  examples: [
    'examctl doctor',
    'examctl doctor --profile prod --json',
    'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor',
  ],
  options: [SYNC_DIR_OPTION] as const,
  takes: [...TARGET_FLAGS, '--dry-run'],
});

export type DoctorOptions = CommandOptions<typeof DOCTOR>;
