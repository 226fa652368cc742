import { UsageError } from '../system/errors.js';
import { formatCount } from '../formats/number-format.js';
import { currentTrust, laterRunsOnTarget, recordedFlags, RunJournalError, type OpenedResume } from '../runs/index.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { pinDigest } from './run-journaling.js';

/*
 * What `runs resume` decides before it runs a command again (docs/runs.md, "runs resume"): not over
 * later runs of it, and with which options (the recorded ones, the recorded target, the same PIN).
 */

/** Flags given to `runs resume` that apply to the resumed run: output, prompts and pacing, never what is sent. */
const RESUME_OVERRIDES = ['json', 'report', 'yes', 'input', 'debug', 'concurrency', 'rate', 'tokenFile', 'profile', 'allowInsecureHttp'] as const;

/**
 * A later run of the same command on the same target (a newer night) has sent since this one
 * started: resuming would send this run's older rows over theirs (a user the later export has
 * could be disabled again as this run's leaver), with exit 0. Refused unless --over-later-runs
 * (docs/runs.md, "runs resume").
 */
export async function refuseOverLaterRuns(runsDir: string, header: OpenedResume['record']['header']): Promise<void> {
  const later = await laterRunsOnTarget(runsDir, header, currentTrust());
  if (later.length === 0) return;
  const named = later.slice(0, 3).join(', ') + (later.length > 3 ? ` and ${formatCount(later.length - 3)} more` : '');
  throw new RunJournalError(
    `run ${header.id}: ${later.length === 1 ? 'a later run' : `${formatCount(later.length)} later runs`} of ${header.command} went to the same target since it started (${named}); ` +
      `resuming would send this run's older rows over what ${later.length === 1 ? 'it' : 'they'} sent. ` +
      "If a later run was this run's own retry (its report with --only-failed) and ended ok, this run's work is done (examctl runs prune --all removes it from runs list); " +
      'else run the command again with today\'s file (safe where a second run is: user sync, --upsert, --missing-ok, --existing ok), ' +
      'or give --over-later-runs if the later runs sent other records',
  );
}

/** The options a resumed run runs with: its recorded flags and target, the PIN checked against its digest, and the given output flags. */
export function resumedOptions(opened: OpenedResume, given: GlobalOptions, pin: string | undefined, digested: readonly string[]): Record<string, unknown> {
  const { header } = opened.record;
  const { pinSha256 } = header.options;
  const recorded = recordedFlags(header.options, digested);
  // stdin was copied to a temp file that lived only as long as that run: nothing to read again.
  if (recorded.file === '-') {
    throw new RunJournalError(
      `run ${header.id} read its input from stdin or a pipe (--file -, a FIFO, <(...)), which cannot be read again, so it cannot be resumed; ` +
        `examctl runs show ${header.id} lists what was done: send the rest from a file`,
    );
  }
  const options: Record<string, unknown> = { ...recorded };
  if (typeof pinSha256 === 'string') {
    if (pin === undefined) throw new RunJournalError(`run ${header.id} was started with --pin; give the same PIN again with --pin-file, EXAMCTL_PIN or --pin (the journal keeps only its hash)`);
    if (pinDigest(pin) !== pinSha256) throw new RunJournalError(`run ${header.id}: this --pin differs from the one the run was started with; give the same PIN`);
    options.pin = pin;
  } else if (pin !== undefined) {
    throw new UsageError(`run ${header.id} was started without --pin; a resume sends what the run sent`);
  }
  // The recorded target, not the one configured today: the items already sent went there.
  options.target = header.target.kind;
  if (header.target.kind === 'local') options.store = header.target.store;
  else options.baseUrl = typeof recorded.baseUrl === 'string' ? recorded.baseUrl : header.target.baseUrl;
  for (const name of RESUME_OVERRIDES) {
    const value = (given as Record<string, unknown>)[name];
    if (value !== undefined) options[name] = value;
  }
  options.runsDir = given.runsDir;
  delete options.dryRun;
  return options;
}
