import { COLLECTION_ADD } from './commands/collection-add.options.js';
import { COMPLETION } from './commands/completion.options.js';
import { CONFIG_LIST, CONFIG_REMOVE, CONFIG_SET_PROFILE, CONFIG_SHOW, CONFIG_USE } from './commands/config.options.js';
import { DOCTOR } from './commands/doctor.options.js';
import { INVIGILATORS_REMOVE } from './commands/invigilators-remove.options.js';
import { LOCAL_EXPORT } from './commands/local-export.options.js';
import { LOCAL_INIT } from './commands/local-init.options.js';
import { LOCAL_SERVE } from './commands/local-serve.options.js';
import { LOGIN } from './commands/login.options.js';
import { REVIEW_SESSION_SHOW } from './commands/review-session-show.options.js';
import { RUNS_LIST, RUNS_PRUNE, RUNS_RESUME, RUNS_SHOW } from './commands/runs.options.js';
import { SCHEDULE_LINKS } from './commands/schedule-links.options.js';
import { SCHEDULE_PUSH } from './commands/schedule-push.options.js';
import { SCHEMA } from './commands/schema.options.js';
import { EXPLAIN } from './commands/explain.options.js';
import {
  SYNCED_ADOPT,
  SYNCED_ADOPT_COLLECTIONS,
  SYNCED_ADOPT_SCHEDULES,
  SYNCED_EXPORT,
  SYNCED_FORGET,
  SYNCED_IMPORT,
  SYNCED_SHOW,
  SYNCED_UNLOCK,
} from './commands/synced.options.js';
import { TEMPLATE } from './commands/template.options.js';
import { USER_SYNC } from './commands/user-sync.options.js';
import { APPLY } from './commands/apply.options.js';
import { declareGroup, type CommandDeclaration } from './command-declaration.js';

/**
 * The registry: every command of `examctl`, in the order `--help` and completion list them, a command after
 * its group (docs/architecture.md, "Add a command"). A group (no flags, no behaviour) is declared here, as it
 * spans several command files.
 */
export const COMMANDS: readonly CommandDeclaration[] = [
  declareGroup({
    name: 'schedule',
    description: 'schedules and their candidates',
    examples: ['examctl schedule push --file sittings.csv --dry-run', 'examctl schedule push --help'],
  }),
  SCHEDULE_PUSH,
  SCHEDULE_LINKS,
  declareGroup({
    name: 'user',
    description: 'platform users',
    examples: ['examctl user sync --file users.csv --dry-run', 'examctl user sync --help'],
  }),
  USER_SYNC,
  declareGroup({
    name: 'collection',
    description: 'collections of taxonomies and objective repositories',
    examples: ['examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'],
  }),
  COLLECTION_ADD,
  declareGroup({
    name: 'invigilators',
    description: 'invigilators of a schedule',
    examples: ['examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'],
  }),
  INVIGILATORS_REMOVE,
  APPLY,
  TEMPLATE,
  SCHEMA,
  EXPLAIN,
  declareGroup({
    name: 'review-session',
    description: 'review sessions (read only)',
    examples: ['examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'],
  }),
  REVIEW_SESSION_SHOW,
  declareGroup({
    name: 'local',
    description: 'the local engine and its store',
    examples: ['examctl local init', 'examctl local export > world.json'],
  }),
  LOCAL_INIT,
  LOCAL_EXPORT,
  LOCAL_SERVE,
  DOCTOR,
  declareGroup({
    name: 'config',
    description: 'profiles of remote targets in the config file (never shows a token)',
    examples: ['examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'],
  }),
  CONFIG_SET_PROFILE,
  CONFIG_LIST,
  CONFIG_REMOVE,
  CONFIG_USE,
  CONFIG_SHOW,
  declareGroup({
    name: 'runs',
    description: "journaled runs: list them, show one's report, resume one that was killed or stopped (docs/runs.md)",
    examples: ['examctl runs list', 'examctl runs resume', 'examctl runs show last --json'],
  }),
  RUNS_LIST,
  RUNS_SHOW,
  RUNS_RESUME,
  RUNS_PRUNE,
  declareGroup({
    name: 'synced',
    description:
      'the sync memory: what examctl last sent each target, which --changed-only and --disable-missing read (docs/sync.md)',
    examples: ['examctl synced show', 'examctl synced forget --target local --store ./store'],
  }),
  SYNCED_SHOW,
  SYNCED_EXPORT,
  SYNCED_IMPORT,
  SYNCED_ADOPT,
  SYNCED_ADOPT_SCHEDULES,
  SYNCED_ADOPT_COLLECTIONS,
  SYNCED_UNLOCK,
  SYNCED_FORGET,
  LOGIN,
  COMPLETION,
];
