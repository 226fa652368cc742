import { lockTimeoutFromEnv } from '../system/lock.js';
import { counted, formatCount } from '../formats/number-format.js';
import { countedKind } from './memory-lines.js';
import { describeTarget } from '../report/report-writers.js';
import { printLine, say } from '../formats/terminal-text.js';
import { describeMemory, forgetMemory, heldBy, listMemories } from './memory-files.js';
import { memoryPlaceOf } from '../context/target.js';
import { forgetServiceMemory, serviceMemories } from './memory-transfer.js';
import { LOSS_COST, recoveries } from './memory-loss.js';
import { printJson, type CommandDeps } from '../context/command-deps.js';
import type { TargetOf } from '../context/resolved-target.js';
import type { GlobalOptions } from '../flags/global-options.js';

/**
 * `synced show`: every sync memory, what docs/sync.md, "Retention" lists of it (a state service's: the one it keeps);
 * --json: `{ syncDir, memories }`.
 */
export async function showMemories(syncDir: string | undefined, options: GlobalOptions, deps: CommandDeps) {
  const place = memoryPlaceOf(syncDir, options.runsDir, deps);
  const dir = place.kind === 'dir' ? place.syncDir : place.address;
  const kept =
    place.kind === 'dir' ? await listMemories(place.syncDir) : await serviceMemories(place.address, deps.env);
  const memories = await Promise.all(
    kept.map(async (contents) => ({
      ...describeMemory(contents),
      // Of another store: not used by the store its path holds now (one gone may have moved: docs/sync.md).
      ...((await heldBy([contents], contents.target)) === false ? { replaced: true } : {}),
    })),
  );
  if (options.json) {
    await printJson(deps, { syncDir: dir, memories });
    return 0;
  }
  if (memories.length === 0) {
    await say(
      deps,
      `no sync memory in ${dir}; if a nightly sync kept one here, it was lost: ${LOSS_COST}. ${recoveries()}`,
    );
    return 0;
  }
  for (const memory of memories) {
    const where = memory.target === null ? '?' : describeTarget(memory.target);
    const disabled = memory.disabled > 0 ? ` (${formatCount(memory.disabled)} disabled as leavers)` : '';
    const populations =
      memory.populations === undefined
        ? ''
        : ` (by --population: ${Object.entries(memory.populations)
            .map(([name, count]) => `${name === '' ? 'none' : name} ${formatCount(count)}`)
            .join(', ')})`;
    const unsettled =
      memory.unsettled > 0
        ? `, ${formatCount(memory.unsettled)} unsettled (a request went out, or was about to, with no ok recorded: the next run sends them)`
        : '';
    const replaced =
      'replaced' in memory
        ? ' (of another store: the store there holds none of its heads, or is another instance than it names, so does not use it)'
        : '';
    await printLine(
      deps,
      `${where}${replaced}: ${countedKind(memory.remembered, memory.kind)}${populations}${disabled}${unsettled}, last run ${memory.lastRun ?? '-'}, ${memory.file}`,
    );
    for (const synced of memory.populationsSynced) {
      const who = synced.population === null ? 'without --population' : `--population ${synced.population}`;
      await printLine(deps, `  ${who}: newest run ${synced.newestRun}, ${countedKind(synced.count, memory.kind)}`);
    }
  }
  return 0;
}

/** `synced forget`: the invocation's target forgets what examctl sent it; the next run sends everything. */
export async function forgetTargetMemory(
  syncDir: string | undefined,
  options: GlobalOptions,
  deps: CommandDeps,
  target: TargetOf,
): Promise<number> {
  const place = memoryPlaceOf(syncDir, options.runsDir, deps);
  const report = (await target()).report;
  const lockTimeoutMs = lockTimeoutFromEnv(deps.env);
  const onWait = (message: string) => void say(deps, message);
  const forgotten =
    place.kind === 'dir'
      ? await forgetMemory(place.syncDir, report, lockTimeoutMs)
      : await forgetServiceMemory(place.address, report, { lockTimeoutMs, onWait, env: deps.env });
  const dir = place.kind === 'dir' ? place.syncDir : place.address;
  if (options.json) await printJson(deps, { syncDir: dir, target: report, forgotten });
  else {
    await say(
      deps,
      `forgot ${counted(forgotten, 'remembered id', 'remembered ids')} of ${describeTarget(report)}: the next sync sends every record, ` +
        'and disables none of the users examctl synced before nor removes the links it sent (docs/sync.md, "When the memory is lost")',
    );
  }
  return 0;
}
