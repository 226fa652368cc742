/**
 * A resume the sync memory does not bear out (older than the memory's newest run of its
 * population, or one that decided from a memory lost since): docs/runs.md, "runs resume".
 */
import type { CommandDeps } from '../context/command-deps.js';
import type { RunHeaderLine } from '../runs/journal-lines.js';
import { RunJournalError } from '../runs/run-errors.js';
import { flagOf } from '../runs/recorded-options.js';
import { describeTarget, FEEDING_COMMAND, populationWords } from '../report/report-writers.js';
import { populationKey } from './memory-lines.js';
import { populationsOf } from './memory-files.js';
import { memoryPlaceOf } from '../context/target.js';
import { readPlacedMemories } from './memory-place.js';
import { refuseOverLaterRuns, refuseReplacedStore } from '../pipeline/run-journaling.js';
import { resumedRun, storeNotUsedLine } from '../pipeline/resume-run.js';
import type { GlobalOptions } from '../flags/global-options.js';
import { say } from '../formats/terminal-text.js';
import type { OpenedResume } from '../runs/resume-plan.js';

/** The flags with which a run decides from the memory what it sends (a first night decides differently). */
const DECIDING_FLAGS = ['changedOnly', 'disableMissing', 'pruneMemberships', 'onlyNew', 'onlyExisting'] as const;

/**
 * Refuses the resume of run `header` when the memory records a later run of its population (unless
 * --over-later-runs or --force), or, for a deciding run, no record of it at all (unless --force). `held`: the memory
 * the resumed run holds (else read without a lock).
 */
export async function refuseResumeAgainstMemory(
  header: Pick<RunHeaderLine, 'id' | 'command' | 'target' | 'options' | 'syncDir'>,
  runsDir: string | undefined,
  deps: Pick<CommandDeps, 'env' | 'cwd'>,
  check: { laterRuns: boolean; lostMemory: boolean },
  held?: { name: string; populations: ReadonlyMap<string, { run: string }> },
): Promise<void> {
  const kind = (['users', 'schedules'] as const).find((one) => FEEDING_COMMAND[one] === header.command);
  if (kind === undefined) return;
  const deciding = DECIDING_FLAGS.filter((flag) => header.options[flag] === true);
  if (!check.laterRuns && !(check.lostMemory && deciding.length > 0)) return;
  const syncDir = header.syncDir ?? (typeof header.options.syncDir === 'string' ? header.options.syncDir : undefined);
  const population = typeof header.options.population === 'string' ? header.options.population : undefined;
  const read =
    held === undefined
      ? await readPlacedMemories(memoryPlaceOf(syncDir, runsDir, deps), header.target, deps.env)
      : undefined;
  const contents = read?.memories.get(kind);
  const name = held?.name ?? read!.name;
  const newest = (held?.populations ?? (contents && populationsOf(contents)))?.get(populationKey(population))?.run;
  if (newest === undefined && check.lostMemory && deciding.length > 0) {
    const flags = deciding.map(flagOf).join(', ');
    throw new RunJournalError(
      `run ${header.id}: the sync memory of ${describeTarget(header.target)} holds no record of ${populationWords(population)} (looked in ${name}), ` +
        `but this run decided from it (${flags}) and put that record there before it sent anything: the memory was lost since. ` +
        'Resumed without it, the run would decide as a first night (no record left out as unchanged, no leaver disabled, no link pruned) ' +
        'and leave a memory that a later --require-memory takes for a whole one. Restore the memory first (examctl synced import, or examctl synced adopt: ' +
        'docs/sync.md, "When the memory is lost"), then resume; or give --force to resume it as a first night',
      { code: 'E2501' },
    );
  }
  if (!check.laterRuns || newest === undefined || newest <= header.id) return;
  throw new RunJournalError(
    `run ${header.id}: the sync memory of ${describeTarget(header.target)} records a later run of ${header.command} for ${populationWords(population)}, ${newest} ` +
      "(in this runs directory or another, on this machine or another runner): resuming would send this run's older rows over what it sent. " +
      "Run the command again with today's file instead, or give --force (or --over-later-runs) if that later run sent other records",
    { code: 'E2202' },
  );
}

/**
 * `runs resume`'s decisions before the command runs again: a replaced store refused, a --store given said as not
 * used, and the refusals against later runs and the memory, made now and made again once the run holds the memory
 * (a later run may go on record while it waits). The memory knows the newest run of each population wherever it
 * ran, and whether it was lost since this run started (docs/runs.md, "runs resume"): --over-later-runs or --force
 * resumes over later runs, --force over a lost memory.
 */
export async function resumeChecked(
  opened: OpenedResume,
  options: Record<string, unknown>,
  { runsDir, given }: { runsDir: string; given: GlobalOptions },
  flags: { overLaterRuns?: boolean | undefined; force?: boolean | undefined },
  deps: CommandDeps,
): Promise<{ resumed: ReturnType<typeof resumedRun>; check: NonNullable<OpenedResume['check']> }> {
  const { header } = opened.record;
  await refuseReplacedStore(header);
  const notUsed = storeNotUsedLine(given);
  if (notUsed !== undefined) await say(deps, notUsed);
  const overLater = flags.overLaterRuns === true || flags.force === true;
  const resumed = resumedRun(opened, options, overLater, deps.cwd);
  const check: NonNullable<OpenedResume['check']> = async (held) => {
    if (!overLater) await refuseOverLaterRuns(runsDir, header);
    await refuseResumeAgainstMemory(
      header,
      given.runsDir,
      { env: deps.env, cwd: resumed.cwd },
      { laterRuns: !overLater, lostMemory: flags.force !== true },
      held,
    );
  };
  await check();
  return { resumed, check };
}
