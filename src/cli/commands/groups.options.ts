import { declareGroup } from '../command-declaration.js';

/**
 * The command groups (`examctl user`, `examctl runs`...): what `examctl <group> --help` says, no
 * flags, no behaviour. All in this one file rather than beside their commands because a group
 * spans several command files (`local` has three, `schedule` two) and none of them is its
 * obvious home: look here for any group. `program.ts` places each before its commands.
 */

export const SCHEDULE_GROUP = declareGroup({
  name: 'schedule',
  description: 'schedules and their candidates',
  examples: ['examctl schedule push --file sittings.csv --dry-run', 'examctl schedule push --help'],
});

export const USER_GROUP = declareGroup({ name: 'user', description: 'platform users', examples: ['examctl user sync --file users.csv --dry-run', 'examctl user sync --help'] });

export const COLLECTION_GROUP = declareGroup({
  name: 'collection',
  description: 'collections of taxonomies and objective repositories',
  examples: ['examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'],
});

export const INVIGILATORS_GROUP = declareGroup({
  name: 'invigilators',
  description: 'invigilators of a schedule',
  examples: ['examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'],
});

export const REVIEW_SESSION_GROUP = declareGroup({
  name: 'review-session',
  description: 'review sessions (read only)',
  examples: ['examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'],
});

export const LOCAL_GROUP = declareGroup({ name: 'local', description: 'the local engine and its store', examples: ['examctl local init', 'examctl local export > world.json'] });

export const CONFIG_GROUP = declareGroup({
  name: 'config',
  description: 'profiles of remote targets in the config file (never shows a token)',
  examples: ['examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'],
});

export const RUNS_GROUP = declareGroup({
  name: 'runs',
  description: "journaled runs: list them, show one's report, resume one that was killed or stopped (docs/runs.md)",
  examples: ['examctl runs list', 'examctl runs resume', 'examctl runs show last --json'],
});

export const SYNCED_GROUP = declareGroup({
  name: 'synced',
  description: 'the sync memory: what examctl last sent each target, which --changed-only and --disable-missing read (docs/sync.md)',
  examples: ['examctl synced show', 'examctl synced forget --target local --store ./store'],
});
