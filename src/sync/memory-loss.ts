import { ADOPT_COMMAND } from '../report/report-writers.js';

/**
 * What every message about a missing or damaged sync memory says, and where (docs/sync.md, "When
 * the memory is lost"), so an admin never reads "start it again" as the cheap way out.
 */

/**
 * What a night without the memory costs, and that nothing later mends it: the platform cannot be
 * listed, so only the memory knows what examctl sent before.
 */
export const LOSS_COST =
  'a night without it sends every record, and disables none of the users who left and removes none of the links their files dropped since the memory was lost: no later night repairs that';

/**
 * What a schedule night without the memory costs: every schedule goes again, and a candidate the
 * files dropped since is named by no run (docs/sync.md, "Withdrawn candidates").
 */
const SCHEDULES_LOSS_COST =
  'a night without it sends every schedule, and names none of the candidates its files dropped since the memory was lost: no later night repairs that';

/** A kind of memory (memory-lines.ts's SyncKind, which imports this file). */
type SyncKind = keyof typeof ADOPT_COMMAND;

/** The file each kind of memory is rebuilt from (docs/sync.md, "When the memory is lost"). */
const ADOPT_FILE = {
  users: '<the last export fully synced>',
  schedules: '<the last file fully sent>',
  collections: '<the last file fully sent>',
} as const;

/**
 * The recoveries, in order: restore a kept copy, rebuild from the last export that was fully
 * synced, and only then, knowingly, a first night.
 */
export function recoveries(population?: string, kind: SyncKind = 'users'): string {
  // Only user sync has populations.
  const adopt = `examctl ${ADOPT_COMMAND[kind]} --file ${ADOPT_FILE[kind]}${population === undefined ? '' : ` --population ${population}`}${kind === 'users' ? ', for each population' : ''}`;
  return (
    'Restore it (examctl synced import <a file of examctl synced export>, or the state service that keeps it: --sync-dir), ' +
    `or rebuild it (${adopt}); only then, as a knowing choice, a first night without it (docs/sync.md, "When the memory is lost")`
  );
}

/** The whole of it, after a sentence saying what is missing or damaged. */
export function lossAdvice(population?: string, kind: SyncKind = 'users'): string {
  const cost = kind === 'schedules' ? SCHEDULES_LOSS_COST : LOSS_COST;
  return `${cost.charAt(0).toUpperCase()}${cost.slice(1)}. ${recoveries(population, kind)}`;
}
