import { brief, kept, option } from '../../flags/option-table.js';

/** `--plan-out`: a dry run writes the plan `examctl apply` sends (docs/plan.md). */
export const PLAN_OUT_OPTION = kept(
  brief(
    'with --dry-run: write the plan examctl apply sends',
    option(
      '--plan-out <file>',
      'with --dry-run: write every request the real run would send, in order, with its action and before and after, and where the store and sync memory stand, to this file (0600, checksummed); examctl apply <file> then sends exactly that (docs/plan.md)',
    ),
  ),
  { notKept: "a dry run's output: a dry run keeps no journal, and apply runs the plan, not this flag" },
);
