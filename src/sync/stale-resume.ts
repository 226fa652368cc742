/**
 * A resume older than the memory (docs/runs.md, "runs resume"): the sync memory records the
 * newest run of each population of its target, whichever runner and runs directory it ran in. A
 * run older than that, resumed, would send its older rows over what the later run sent and take
 * as its leavers users the later file still has; refused (exit 2) naming both runs, unless --force
 * or --over-later-runs.
 */
import type { CommandDeps } from '../context/command-deps.js';
import type { ReportTarget } from '../report/run-report.js';
import { RunJournalError } from '../runs/run-errors.js';
import { describeTarget } from '../report/report-writers.js';
import { populationKey, populationsOf, type SyncKind } from './sync-memory.js';
import { memoryPlaceOf, readPlacedMemories } from './memory-place.js';
import { populationWords } from './memory-loss.js';

/** The memory kind a command feeds, if it feeds one. */
const KIND_OF: Readonly<Record<string, SyncKind>> = { 'user sync': 'users', 'schedule push': 'schedules' };

/** Refuses the resume of run `header` when the memory records a later run of its target and population. */
export async function refuseResumeOlderThanMemory(
  header: { id: string; command: string; target: ReportTarget; options: Readonly<Record<string, unknown>> },
  runsDir: string | undefined,
  deps: Pick<CommandDeps, 'env' | 'cwd'>,
): Promise<void> {
  const kind = KIND_OF[header.command];
  if (kind === undefined) return;
  const syncDir = typeof header.options.syncDir === 'string' ? header.options.syncDir : undefined;
  const population = typeof header.options.population === 'string' ? header.options.population : undefined;
  const place = memoryPlaceOf(syncDir, runsDir, deps);
  const { memories } = await readPlacedMemories(place, header.target, deps.env);
  const contents = memories.get(kind);
  const newest = contents === undefined ? undefined : populationsOf(contents).get(populationKey(population))?.run;
  if (newest === undefined || newest <= header.id) return;
  throw new RunJournalError(
    `run ${header.id}: the sync memory of ${describeTarget(header.target)} records a later run of ${header.command} for ${populationWords(population)}, ${newest} ` +
      '(in this runs directory or another, on this machine or another runner): resuming would send this run\'s older rows over what it sent. ' +
      'Run the command again with today\'s file instead, or give --force (or --over-later-runs) if that later run sent other records',
  );
}
