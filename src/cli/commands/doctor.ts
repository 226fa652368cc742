import type { CommandDeps } from '../../context/command-deps.js';
import type { DoctorOptions } from './doctor.options.js';
import { runDoctor } from '../../context/doctor-checks.js';
import { memoryCheck } from '../../sync/doctor-memory.js';

/**
 * `examctl doctor` (its checks: docs/remote.md, "examctl doctor"), changing nothing. The check
 * list is the command's result, so it goes to stdout (one JSON document with --json).
 */
export async function run(options: DoctorOptions, deps: CommandDeps): Promise<number> {
  return runDoctor(options, deps, memoryCheck);
}
