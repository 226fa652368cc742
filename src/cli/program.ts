import { COLLECTION_ADD } from './commands/collection-add.options.js';
import { COMPLETION } from './commands/completion.options.js';
import { CONFIG_LIST, CONFIG_REMOVE, CONFIG_SET_PROFILE, CONFIG_SHOW, CONFIG_USE } from './commands/config.options.js';
import { DOCTOR } from './commands/doctor.options.js';
import {
  COLLECTION_GROUP,
  CONFIG_GROUP,
  INVIGILATORS_GROUP,
  LOCAL_GROUP,
  REVIEW_SESSION_GROUP,
  RUNS_GROUP,
  SCHEDULE_GROUP,
  SYNCED_GROUP,
  USER_GROUP,
} from './commands/groups.options.js';
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
import { SYNCED_ADOPT, SYNCED_ADOPT_COLLECTIONS, SYNCED_ADOPT_SCHEDULES, SYNCED_EXPORT, SYNCED_FORGET, SYNCED_IMPORT, SYNCED_SHOW, SYNCED_UNLOCK } from './commands/synced.options.js';
import { TEMPLATE } from './commands/template.options.js';
import { USER_SYNC } from './commands/user-sync.options.js';
import type { CommandDeclaration } from './command-declaration.js';

/**
 * The registry: every command of `examctl`, in the order `--help` and completion list them. A
 * command is declared in its `commands/<command>.options.ts` (flags, purpose, examples, a lazily
 * loaded behaviour) and a group in `commands/groups.options.ts`; list it here, a command after
 * its group. `command-tree.ts` builds commander's tree from this list, `run-cli.ts` runs it.
 */
export const COMMANDS: readonly CommandDeclaration[] = [
  SCHEDULE_GROUP,
  SCHEDULE_PUSH,
  SCHEDULE_LINKS,
  USER_GROUP,
  USER_SYNC,
  COLLECTION_GROUP,
  COLLECTION_ADD,
  INVIGILATORS_GROUP,
  INVIGILATORS_REMOVE,
  TEMPLATE,
  SCHEMA,
  REVIEW_SESSION_GROUP,
  REVIEW_SESSION_SHOW,
  LOCAL_GROUP,
  LOCAL_INIT,
  LOCAL_EXPORT,
  LOCAL_SERVE,
  DOCTOR,
  CONFIG_GROUP,
  CONFIG_SET_PROFILE,
  CONFIG_LIST,
  CONFIG_REMOVE,
  CONFIG_USE,
  CONFIG_SHOW,
  RUNS_GROUP,
  RUNS_LIST,
  RUNS_SHOW,
  RUNS_RESUME,
  RUNS_PRUNE,
  SYNCED_GROUP,
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
