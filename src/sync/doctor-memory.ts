import type { CommandDeps } from '../context/command-deps.js';
import type { ResolvedTarget } from '../context/resolved-target.js';
import { memoryPlaceOf } from '../context/target.js';
import { failedCheck, type DoctorCheck } from '../context/doctor-verdicts.js';
import type { DoctorCheckOptions } from '../context/doctor-checks.js';
import { byKey } from '../domain/key-order.js';
import { standingWords } from './store-standing.js';
import { readPlacedMemories } from './memory-place.js';
import { populationsOf, recordsAnything, sameTargetElsewhere, standingOf } from './memory-files.js';
import { LOSS_COST, recoveries } from './memory-loss.js';
import { SYNC_KINDS } from './memory-lines.js';

/** The target's sync memory, checked as docs/remote.md, "examctl doctor" says. */
export async function memoryCheck(
  target: ResolvedTarget,
  options: DoctorCheckOptions,
  deps: CommandDeps,
): Promise<DoctorCheck> {
  const place = memoryPlaceOf(options.syncDir, options.runsDir, deps);
  try {
    const read = await readPlacedMemories(place, target.report, deps.env);
    const { memories } = read;
    // Named with what gave its place, as the settings line names it.
    const name = `${read.name} (${place.from})`;
    const held: string[] = [];
    // What a run would warn of; a memory of another store, with the code a --require-memory run refuses it with.
    const warnings = new Set<string>();
    let other = false;
    for (const [kind, contents] of memories) {
      if (!recordsAnything(contents)) continue;
      const populations = [...populationsOf(contents)].sort(byKey);
      const headed = populations.flatMap(([, { heads }]) => (heads ? [heads] : []));
      // An older examctl's memory (no head): the store instance its header records, if any, tells (memoryStanding).
      for (const heads of headed.length > 0 ? headed : contents.instance === undefined ? [] : [[]]) {
        const { found } = await standingOf(target, heads, contents.instance, true);
        other ||= found.is === 'other';
        const words = standingWords(found, target.kind, contents.entries, kind);
        if (words) warnings.add(words);
      }
      held.push(
        `${kind} ${contents.entries.size} (${populations.map(([key, record]) => `${key === '' ? 'without --population' : key}: newest run ${record.run}`).join('; ') || 'no population'})`,
      );
    }
    if (held.length === 0 && place.kind === 'dir' && target.kind === 'local') {
      const moved = (
        await Promise.all(SYNC_KINDS.map((kind) => sameTargetElsewhere(place.syncDir, target.report, kind)))
      )
        .flat()
        .filter((other) => other.moved);
      if (moved.length > 0)
        return {
          name: 'sync memory',
          status: 'ok',
          detail: `none at ${name} yet: the next run takes in this store's memory kept for the path it was moved from (${moved.map((other) => other.file).join(', ')})`,
        };
    }
    if (held.length === 0)
      return {
        name: 'sync memory',
        status: 'skip',
        detail: `none at ${name}; if a nightly sync kept one there, it was lost: ${LOSS_COST}. ${recoveries()}`,
      };
    return {
      name: 'sync memory',
      status: warnings.size > 0 ? 'warn' : 'ok',
      detail: [`${name}: ${held.join(', ')}`, ...warnings].join(': '),
      ...(other && { code: 'E2504' as const }),
    };
  } catch (error) {
    return failedCheck('sync memory', error);
  }
}
