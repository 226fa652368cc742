import { UsageError } from '../../system/errors.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import type { DoctorOptions } from './doctor.options.js';
import type { ResolvedTarget } from '../../context/resolved-target.js';
import { targetOnce } from '../../context/target.js';
import {
  checkLocal,
  checkRemote,
  permissionsCheck,
  renderReport,
  type DoctorReport,
} from '../../context/doctor-checks.js';
import { memoryCheck } from '../../sync/doctor-memory.js';
import { failedCheck } from '../../context/doctor-verdicts.js';
import { BUILD_ID } from '../../version.js';

/**
 * `examctl doctor` (its checks: docs/remote.md, "examctl doctor"), changing nothing. The check
 * list is the command's result, so it goes to stdout (one JSON document with --json).
 */
export async function run(options: DoctorOptions, deps: CommandDeps): Promise<number> {
  let report: DoctorReport;
  let resolved: ResolvedTarget | undefined;
  try {
    const target = await targetOnce(options, { ...deps, sends: true })();
    resolved = target;
    if (target.kind === 'remote') await target.remote.checkBaseUrl();
    report = target.kind === 'local' ? await checkLocal(target.store, deps) : await checkRemote(target, deps);
  } catch (error) {
    // What makes a run that sends a usage error (no base URL, unknown profile, unreadable
    // token file) is exactly what doctor is asked to diagnose: a failed check, exit 3.
    if (!(error instanceof UsageError)) throw error;
    report = {
      healthy: false,
      target: options.target,
      checks: [failedCheck('target', error)],
    };
  }
  const tokenFile = resolved?.kind === 'remote' ? resolved.tokenFile : undefined;
  report.checks.push(await permissionsCheck(options, deps, report.store, tokenFile));
  if (resolved !== undefined) report.checks.push(await memoryCheck(resolved, options, deps));
  report.healthy = !report.checks.some((check) => check.status === 'fail');
  report.build = BUILD_ID;
  if (options.json) {
    await printJson(deps, report, 2);
  } else {
    await deps.stdout.write(renderReport(report));
  }
  return report.healthy ? 0 : 3;
}
