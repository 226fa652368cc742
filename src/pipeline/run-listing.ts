import { assertTrustedRunsDir, currentTrust, type RunTrust } from '../runs/run-trust.js';
import { listRuns, pruneRuns } from '../runs/read-run.js';
import { resolveRunsDir } from '../runs/runs-dir.js';
import { describeTarget } from '../report/report-writers.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import { type GlobalOptions } from '../flags/global-options.js';
import { instantOf } from '../flags/flag-values.js';
import { printLine, say } from '../formats/terminal-text.js';
import { counted, formatCount } from '../formats/number-format.js';

/* `runs list` and `runs prune` (docs/runs.md). */

/** Who "the current user" is for the runs' ownership checks (run-trust.ts); tests inject another. */
export function trustOf(deps: CommandDeps): RunTrust {
  return deps.runTrust ?? currentTrust();
}

/** `runs list`: newest first; with `since`, only those started at or after it. */
export async function listRunsOut(
  since: Parameters<typeof instantOf>[0] | undefined,
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<number> {
  const runsDir = resolveRunsDir(options.runsDir, deps.env);
  const trust = trustOf(deps);
  await assertTrustedRunsDir(runsDir, trust);
  const from = since === undefined ? undefined : instantOf(since, deps.now());
  const { runs, unreadable, older } = await listRuns(runsDir, trust, from);
  if (options.json) {
    await printJson(deps, { runsDir, runs, unreadable });
    return 0;
  }
  if (runs.length === 0 && unreadable.length === 0) {
    // Runs that --since left out are said, so an empty answer is never read as "no runs at all".
    const what =
      from === undefined
        ? `no runs in ${runsDir}`
        : `no runs since ${new Date(from).toISOString()} in ${runsDir} (${older} older)`;
    await say(deps, what);
    return 0;
  }
  for (const run of runs) {
    const { total, ok, partial, failed, skipped } = run.summary;
    const n = formatCount;
    // Not on record how many units it had: at least those its journal holds (runs show reads the input again).
    const atLeast = run.totalKnown === false ? 'at least ' : '';
    const counts = `${atLeast}${n(total)} ${total === 1 && atLeast === '' ? 'item' : 'items'}: ${n(ok)} ok, ${n(partial)} partial, ${n(failed)} failed, ${n(skipped)} skipped`;
    await printLine(
      deps,
      `${run.id}  ${run.state.padEnd(11)}  ${run.command.padEnd(18)}  ${counts}  ${describeTarget(run.target)}${run.input === null ? '' : `  ${run.input}`}${run.state === 'store-replaced' || run.state === 'refused' ? '  (run the file again)' : ''}`,
    );
  }
  // A row each: it may be the interrupted run.
  for (const { id, reason } of unreadable) await printLine(deps, `${id}  unreadable   ${reason}`);
  return 0;
}

/** `runs prune`: removes the runs past `policy` (by default src/defaults.ts's); says what it removed, kept and left. */
export async function pruneRunsOut(
  policy: Parameters<typeof pruneRuns>[1],
  options: GlobalOptions,
  deps: CommandDeps,
): Promise<number> {
  const runsDir = resolveRunsDir(options.runsDir, deps.env);
  const result = await pruneRuns(runsDir, policy, new Date(), trustOf(deps));
  if (options.json) {
    await printJson(deps, { runsDir, ...result });
    return 0;
  }
  await say(deps, `removed ${counted(result.removed.length, 'run')} from ${runsDir}`);
  if (result.keptUnfinished.length > 0) {
    await say(
      deps,
      `kept ${result.keptUnfinished.length} interrupted (examctl runs resume, or runs prune --all): ${result.keptUnfinished.join(', ')}`,
    );
  }
  if (result.leftAlone.length > 0) {
    await say(
      deps,
      `left ${counted(result.leftAlone.length, 'entry', 'entries')} not owned by you (or not a plain run directory) alone:`,
    );
    for (const { id, reason } of result.leftAlone) await say(deps, `  ${id}: ${reason}`);
  }
  return 0;
}
