import type { SpecTable } from '../flags/option-table.js';
import type { RerunInput } from '../pipeline/record-job.js';
import { COLLECTION_ADD } from './commands/collection-add.options.js';
import { COMPLETION } from './commands/completion.options.js';
import { CONFIG_SET_PROFILE, CONFIG_LIST, CONFIG_REMOVE, CONFIG_USE, CONFIG_SHOW } from './commands/config.options.js';
import { DOCTOR } from './commands/doctor.options.js';
import { INVIGILATORS_REMOVE } from './commands/invigilators-remove.options.js';
import { LOCAL_EXPORT } from './commands/local-export.options.js';
import { LOCAL_INIT } from './commands/local-init.options.js';
import { LOCAL_SERVE } from './commands/local-serve.options.js';
import { LOGIN } from './commands/login.options.js';
import { REVIEW_SESSION_SHOW } from './commands/review-session-show.options.js';
import { RUNS_LIST, RUNS_SHOW, RUNS_RESUME, RUNS_PRUNE } from './commands/runs.options.js';
import { SCHEDULE_LINKS } from './commands/schedule-links.options.js';
import { SCHEDULE_PUSH } from './commands/schedule-push.options.js';
import { SCHEMA } from './commands/schema.options.js';
import { EXPLAIN } from './commands/explain.options.js';
import {
  SYNCED_SHOW,
  SYNCED_FORGET,
  SYNCED_EXPORT,
  SYNCED_IMPORT,
  SYNCED_ADOPT,
  SYNCED_ADOPT_SCHEDULES,
  SYNCED_ADOPT_COLLECTIONS,
  SYNCED_UNLOCK,
} from './commands/synced.options.js';
import { TEMPLATE } from './commands/template.options.js';
import { USER_SYNC } from './commands/user-sync.options.js';
import { APPLY } from './commands/apply.options.js';
import {
  commandName,
  type Behaviours,
  type CommandBehaviour,
  type CommandOptions,
  type CommandRun,
  type DeclaredCommand,
} from './command-declaration.js';

/**
 * Where each command's behaviour is loaded from, only when it runs (docs/architecture.md, "Add a command");
 * `behaviour` checks by type that the loaded `run` takes exactly its declaration's options, and that a
 * resumable command's `rerunInput` (which reads its input again) is one.
 */
function behaviour<T extends SpecTable, K extends string = 'run'>(
  declaration: DeclaredCommand<T>,
  load: () => Promise<Record<NoInfer<K>, CommandRun<CommandOptions<DeclaredCommand<T>>>> & { rerunInput?: RerunInput }>,
  name = 'run' as K,
): [string, CommandBehaviour] {
  return [
    commandName(declaration),
    { run: async () => (await load())[name] as CommandRun<never>, rerunInput: async () => (await load()).rerunInput },
  ];
}

export const COMMAND_BEHAVIOURS: Behaviours = new Map([
  behaviour(APPLY, () => import('./commands/apply.js')),
  behaviour(COLLECTION_ADD, () => import('./commands/collection-add.js')),
  behaviour(COMPLETION, () => import('./commands/completion.js')),
  behaviour(CONFIG_SET_PROFILE, () => import('./commands/config.js'), 'runSetProfile'),
  behaviour(CONFIG_LIST, () => import('./commands/config.js'), 'runList'),
  behaviour(CONFIG_REMOVE, () => import('./commands/config.js'), 'runRemove'),
  behaviour(CONFIG_USE, () => import('./commands/config.js'), 'runUse'),
  behaviour(CONFIG_SHOW, () => import('./commands/config.js'), 'runShow'),
  behaviour(DOCTOR, () => import('./commands/doctor.js')),
  behaviour(EXPLAIN, () => import('./commands/explain.js')),
  behaviour(INVIGILATORS_REMOVE, () => import('./commands/invigilators-remove.js')),
  behaviour(LOCAL_EXPORT, () => import('./commands/local-export.js')),
  behaviour(LOCAL_INIT, () => import('./commands/local-init.js')),
  behaviour(LOCAL_SERVE, () => import('./commands/local-serve.js')),
  behaviour(LOGIN, () => import('./commands/login.js')),
  behaviour(REVIEW_SESSION_SHOW, () => import('./commands/review-session-show.js')),
  behaviour(RUNS_LIST, () => import('./commands/runs.js'), 'runList'),
  behaviour(RUNS_SHOW, () => import('./commands/runs.js'), 'runShow'),
  behaviour(RUNS_RESUME, () => import('./commands/runs.js'), 'runResume'),
  behaviour(RUNS_PRUNE, () => import('./commands/runs.js'), 'runPrune'),
  behaviour(SCHEDULE_LINKS, () => import('./commands/schedule-links.js')),
  behaviour(SCHEDULE_PUSH, () => import('./commands/schedule-push.js')),
  behaviour(SCHEMA, () => import('./commands/schema.js')),
  behaviour(SYNCED_SHOW, () => import('./commands/synced.js'), 'runShow'),
  behaviour(SYNCED_FORGET, () => import('./commands/synced.js'), 'runForget'),
  behaviour(SYNCED_EXPORT, () => import('./commands/synced-transfer.js'), 'runExport'),
  behaviour(SYNCED_IMPORT, () => import('./commands/synced-transfer.js'), 'runImport'),
  behaviour(SYNCED_UNLOCK, () => import('./commands/synced-transfer.js'), 'runUnlock'),
  behaviour(SYNCED_ADOPT, () => import('./commands/synced-adopt.js'), 'runAdopt'),
  behaviour(SYNCED_ADOPT_SCHEDULES, () => import('./commands/synced-adopt.js'), 'runAdoptSchedules'),
  behaviour(SYNCED_ADOPT_COLLECTIONS, () => import('./commands/synced-adopt.js'), 'runAdoptCollections'),
  behaviour(TEMPLATE, () => import('./commands/template.js')),
  behaviour(USER_SYNC, () => import('./commands/user-sync.js')),
]);
