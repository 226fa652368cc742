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
 * The recoveries, in order: restore a kept copy, rebuild from the last export that was fully
 * synced, and only then, knowingly, a first night.
 */
export function recoveries(population?: string): string {
  const adopt = `examctl synced adopt --file <the last export fully synced>${population === undefined ? '' : ` --population ${population}`}`;
  return (
    'Restore it (examctl synced import <a file of examctl synced export>, or the state service that keeps it: --sync-dir), ' +
    `or rebuild it (${adopt}, for each population); only then, as a knowing choice, a first night without it (docs/sync.md, "When the memory is lost")`
  );
}

/** The whole of it, after a sentence saying what is missing or damaged. */
export function lossAdvice(population?: string): string {
  return `${LOSS_COST.charAt(0).toUpperCase()}${LOSS_COST.slice(1)}. ${recoveries(population)}`;
}
