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
import type { SpecTable } from '../flags/option-table.js';
import type { RerunInput } from '../pipeline/record-job.js';
import {
  commandName,
  declareGroup,
  type Behaviours,
  type CommandBehaviour,
  type CommandDeclaration,
  type CommandOptions,
  type CommandRun,
  type DeclaredCommand,
} from './command-declaration.js';

const behaviours = new Map<string, CommandBehaviour>();

/**
 * A runnable command in the registry, with where its behaviour is loaded from, only when it runs
 * (docs/architecture.md, "Add a command"); checks by type that the loaded `run` takes exactly its declaration's
 * options, and that a resumable command's `rerunInput` (which reads its input again) is one.
 */
function behaviour<T extends SpecTable, K extends string = 'run'>(
  declaration: DeclaredCommand<T>,
  load: () => Promise<Record<NoInfer<K>, CommandRun<CommandOptions<DeclaredCommand<T>>>> & { rerunInput?: RerunInput }>,
  name = 'run' as K,
): DeclaredCommand<T> {
  behaviours.set(commandName(declaration), {
    run: async () => (await load())[name] as CommandRun<never>,
    rerunInput: async () => (await load()).rerunInput,
  });
  return declaration;
}

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
  behaviour(SCHEDULE_PUSH, () => import('./commands/schedule-push.js')),
  behaviour(SCHEDULE_LINKS, () => import('./commands/schedule-links.js')),
  declareGroup({
    name: 'user',
    description: 'platform users',
    examples: ['examctl user sync --file users.csv --dry-run', 'examctl user sync --help'],
  }),
  behaviour(USER_SYNC, () => import('./commands/user-sync.js')),
  declareGroup({
    name: 'collection',
    description: 'collections of taxonomies and objective repositories',
    examples: ['examctl collection add --title "Physics 2027" --taxonomy TX-BLOOM', 'examctl collection add --help'],
  }),
  behaviour(COLLECTION_ADD, () => import('./commands/collection-add.js')),
  declareGroup({
    name: 'invigilators',
    description: 'invigilators of a schedule',
    examples: ['examctl invigilators remove S-FUTURE inv-2', 'examctl invigilators remove --help'],
  }),
  behaviour(INVIGILATORS_REMOVE, () => import('./commands/invigilators-remove.js')),
  behaviour(APPLY, () => import('./commands/apply.js')),
  behaviour(TEMPLATE, () => import('./commands/template.js')),
  behaviour(SCHEMA, () => import('./commands/schema.js')),
  behaviour(EXPLAIN, () => import('./commands/explain.js')),
  declareGroup({
    name: 'review-session',
    description: 'review sessions (read only)',
    examples: ['examctl review-session show RS-MATH1-OCT', 'examctl review-session show --help'],
  }),
  behaviour(REVIEW_SESSION_SHOW, () => import('./commands/review-session-show.js')),
  declareGroup({
    name: 'local',
    description: 'the local engine and its store',
    examples: ['examctl local init', 'examctl local export > world.json'],
  }),
  behaviour(LOCAL_INIT, () => import('./commands/local-init.js')),
  behaviour(LOCAL_EXPORT, () => import('./commands/local-export.js')),
  behaviour(LOCAL_SERVE, () => import('./commands/local-serve.js')),
  behaviour(DOCTOR, () => import('./commands/doctor.js')),
  declareGroup({
    name: 'config',
    description: 'profiles of remote targets in the config file (never shows a token)',
    examples: ['examctl config set-profile prod --base-url https://exam.example.com', 'examctl config list'],
  }),
  behaviour(CONFIG_SET_PROFILE, () => import('./commands/config.js'), 'runSetProfile'),
  behaviour(CONFIG_LIST, () => import('./commands/config.js'), 'runList'),
  behaviour(CONFIG_REMOVE, () => import('./commands/config.js'), 'runRemove'),
  behaviour(CONFIG_USE, () => import('./commands/config.js'), 'runUse'),
  behaviour(CONFIG_SHOW, () => import('./commands/config.js'), 'runShow'),
  declareGroup({
    name: 'runs',
    description: "journaled runs: list them, show one's report, resume one that was killed or stopped (docs/runs.md)",
    examples: ['examctl runs list', 'examctl runs resume', 'examctl runs show last --json'],
  }),
  behaviour(RUNS_LIST, () => import('./commands/runs.js'), 'runList'),
  behaviour(RUNS_SHOW, () => import('./commands/runs.js'), 'runShow'),
  behaviour(RUNS_RESUME, () => import('./commands/runs.js'), 'runResume'),
  behaviour(RUNS_PRUNE, () => import('./commands/runs.js'), 'runPrune'),
  declareGroup({
    name: 'synced',
    description:
      'the sync memory: what examctl last sent each target, which --changed-only and --disable-missing read (docs/sync.md)',
    examples: ['examctl synced show', 'examctl synced forget --target local --store ./store'],
  }),
  behaviour(SYNCED_SHOW, () => import('./commands/synced.js'), 'runShow'),
  behaviour(SYNCED_EXPORT, () => import('./commands/synced-transfer.js'), 'runExport'),
  behaviour(SYNCED_IMPORT, () => import('./commands/synced-transfer.js'), 'runImport'),
  behaviour(SYNCED_ADOPT, () => import('./commands/synced-adopt.js'), 'runAdopt'),
  behaviour(SYNCED_ADOPT_SCHEDULES, () => import('./commands/synced-adopt.js'), 'runAdoptSchedules'),
  behaviour(SYNCED_ADOPT_COLLECTIONS, () => import('./commands/synced-adopt.js'), 'runAdoptCollections'),
  behaviour(SYNCED_UNLOCK, () => import('./commands/synced-transfer.js'), 'runUnlock'),
  behaviour(SYNCED_FORGET, () => import('./commands/synced.js'), 'runForget'),
  behaviour(LOGIN, () => import('./commands/login.js')),
  behaviour(COMPLETION, () => import('./commands/completion.js')),
];

/** Each runnable command's behaviour, by its name (`user sync`). */
export const COMMAND_BEHAVIOURS: Behaviours = behaviours;
