/**
 * What a run does with each item, one word per action (docs/plan.md, "Actions"): derived once per
 * item (the dispatcher's `plan`, from its unit), counted once (RunReportBuilder: the summary's
 * `actions`), and read from there by the plan file, the page, the terminal's plan and confirmation,
 * a real run's summary and --json. No writer counts its own.
 */
import { formatCount } from '../formats/number-format.js';

/**
 * Each request's action, then what is not sent (`unchanged` without a request, `left`, `invalid`), and what the
 * target refused (`fails`) or the run never reached (`skipped`); with its words: what a dry run would do, what a
 * real run did.
 */
export const ACTION_WORDS = {
  create: ['to create', 'created'],
  update: ['to update', 'updated'],
  disable: ['to disable', 'disabled'],
  enable: ['to enable', 'enabled'],
  prune: ['to prune (movers)', 'pruned (movers)'],
  remove: ['to remove', 'removed'],
  send: ['to send', 'sent (what it did: not known)'],
  fails: ['refused by the target', 'failed'],
  unchanged: ['unchanged', 'unchanged'],
  left: ['left alone', 'left alone'],
  invalid: ['invalid', 'invalid'],
  skipped: ['skipped', 'skipped'],
} as const satisfies Readonly<Record<string, readonly [dryRun: string, real: string]>>;
export type PlanAction = keyof typeof ACTION_WORDS;
export const PLAN_ACTIONS = Object.keys(ACTION_WORDS) as PlanAction[];

/**
 * The order the plan's sections and the page's tables show the actions in (docs/cli.md, "The HTML page"):
 * what is least easy to take back first, what changes nothing last.
 */
export const SHOWN_ORDER: readonly PlanAction[] = [
  'disable',
  'remove',
  'prune',
  'create',
  'enable',
  'update',
  'send',
  'fails',
  'invalid',
  'skipped',
  'unchanged',
  'left',
];

/** What `actionOf` reads of a report item (run-report.ts's ReportItem). */
interface ItemFacts {
  status: 'ok' | 'partial' | 'failed' | 'skipped';
  action?: string;
  plan?: PlanAction;
  removed?: unknown;
  note?: string;
  changes?: unknown;
  dryRun?: true;
}

/** Counts by action: an action no item had is absent. */
export type ActionCounts = Partial<Record<PlanAction, number>>;

/** What a unit holds beyond its report item, as `actionOf` reads it (record-job.ts's Unit). */
export interface ActionFacts {
  valid: boolean;
  /** Not sent: judged unchanged or left alone from the sync memory. */
  unsent?: 'left' | 'unchanged';
  /** A leaver whose login the run disables. */
  disables?: boolean;
  /** A mover: the request removes a link or flag examctl sent. */
  prunes?: boolean;
  /** The request enables a login examctl disabled. */
  enables?: boolean;
  /** The command only removes (invigilators remove). */
  removes?: boolean;
  /** What examctl knows the request changes (a remote update). */
  knownChanges?: boolean;
}

/** The one derivation of an item's action, from its unit's facts and what the run reported of it. */
export function actionOf(facts: ActionFacts, item: Pick<ItemFacts, 'status' | 'action'>): PlanAction {
  // An item the run never reached (--max-errors, a refusal) is skipped, invalid or not: its status says so and its
  // errors are the stop's, not its own, so the counts of actions and of statuses agree.
  if (item.status === 'skipped') return 'skipped';
  if (!facts.valid) return 'invalid';
  if (facts.unsent !== undefined) return facts.unsent;
  if (item.status === 'failed') return 'fails';
  // A leaver the target answers as unchanged (not there, or disabled already) is what it said.
  if (item.action !== 'unchanged' && (facts.disables === true || item.action === 'disabled')) return 'disable';
  // A mover the target answers as unchanged (its links gone already) lost nothing.
  if (facts.prunes === true && item.action !== 'unchanged') return 'prune';
  // A user examctl disabled whom the target does not hold (never created: docs/sync.md) is created, as the target says.
  if (item.action === 'created') return 'create';
  if (facts.enables === true) return 'enable';
  // An id already gone (--missing-ok) is what the target said: unchanged, nothing removed.
  if (item.action === 'removed' || (facts.removes === true && item.action !== 'unchanged')) return 'remove';
  if (item.action === 'updated') return 'update';
  if (item.action === 'unchanged') return 'unchanged';
  if (item.action === 'left') return 'left';
  // A remote target tells a dry run nothing: an update where examctl knows what it last sent.
  return facts.knownChanges === true ? 'update' : 'send';
}

/** An item's action: the dispatcher's (`plan`), else what the item alone tells (an item read back by `runs show`). */
export function itemAction(item: ItemFacts): PlanAction {
  if (item.plan !== undefined) return item.plan;
  return actionOf(
    {
      valid: !(item.status === 'failed' && item.dryRun === true),
      prunes: item.removed !== undefined,
      enables: item.note === 're-enables',
      knownChanges: item.changes !== undefined,
    },
    item,
  );
}

/** `3 to update, 1 to prune (movers), 44 unchanged` (zeros left out); `nothing to do` when all are. */
export function actionWords(counts: ActionCounts, dryRun: boolean): string {
  const shown = PLAN_ACTIONS.filter((action) => (counts[action] ?? 0) > 0).map(
    (action) => `${formatCount(counts[action] ?? 0)} ${ACTION_WORDS[action][dryRun ? 0 : 1]}`,
  );
  return shown.length > 0 ? shown.join(', ') : 'nothing to do';
}
