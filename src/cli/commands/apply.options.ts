import { argument, brief, parsed } from '../../flags/option-table.js';
import { duration } from '../../flags/flag-values.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { SENDING_FLAGS, TARGET_FLAGS } from '../../flags/taken-flags.js';

export type ApplyOptions = CommandOptions<typeof APPLY>;

export const APPLY = declareCommand({
  path: ['apply'],
  description:
    "send exactly the requests of a plan a dry run wrote (--plan-out): no input file is read again; refused (exit 2, nothing sent) when the plan's target, store or sync memory moved since, or it is older than --max-age",
  examples: [
    '# review tonight: the dry run writes the plan; a person reads it',
    'examctl user sync --file export.csv --changed-only --disable-missing --dry-run --plan-out tonight.plan.json',
    '# then send exactly that (a second apply of the same plan sends nothing)',
    'examctl apply tonight.plan.json --report applied.csv',
  ],
  options: [
    argument('plan', '<plan>', 'the plan file a dry run wrote with --plan-out'),
    brief(
      'refuse a plan older than this (e.g. 12h, 2d)',
      parsed(
        '--max-age <duration>',
        'refuse (exit 2, nothing sent) a plan made longer ago than this, e.g. 12h, 2d',
        duration('--max-age'),
      ),
      '24h',
    ),
  ] as const,
  takes: [...TARGET_FLAGS, ...SENDING_FLAGS],
  resume: {
    notResumable:
      "its run is journaled as the plan's command: examctl runs resume <run> continues it from the plan's kept input",
  },
});
