/**
 * The remote confirmation's plan for a command whose every valid unit is one request of one action
 * (schedule push, collection add, invigilators remove): counts per action, the units the local
 * checks refuse counted apart (docs/plan.md, "At a terminal").
 */
import { formatCount } from '../formats/number-format.js';
import type { RecordJob, Unit } from './record-job.js';

/** `3 to send, 1 invalid (not sent)`, then what they hold (`in all: 4 schedules (120 candidates)`) when told. */
export async function unitPlanWords<P>(
  units: AsyncIterable<readonly Unit<P>[]>,
  action: NonNullable<RecordJob<P>['confirmAction']>,
  holding?: string,
): Promise<string> {
  let valid = 0;
  let invalid = 0;
  for await (const batch of units) for (const unit of batch) unit.prepared.ok ? (valid += 1) : (invalid += 1);
  return [
    `${formatCount(valid)} to ${action}`,
    ...(invalid > 0 ? [`${formatCount(invalid)} invalid (not sent)`] : []),
    ...(holding === undefined ? [] : [`in all ${holding}`]),
  ].join(', ');
}
