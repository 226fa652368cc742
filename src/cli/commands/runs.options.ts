import type { GlobalOptions } from '../global-options.js';
import { duration } from '../flag-values.js';
import { argument, option, parsed, type OptionsOf } from '../option-table.js';

export const RUNS_LIST_OPTIONS = [] as const;

export const RUNS_SHOW_OPTIONS = [argument('id', '<id>', 'a run id from examctl runs list, or "last"')] as const;

export const RUNS_RESUME_OPTIONS = [
  argument('id', '[id]', 'the run to resume (default: the newest interrupted run; "last" is the newest run)'),
  option('--pin <pin>', 'the schedule PIN the run was started with (its journal keeps only a hash, so a resume asks for it)'),
  option(
    '--target-from-run',
    "send to the run's recorded base URL, token file, profile and --allow-insecure-http even where they differ from today's flags, environment and profile (--yes alone does not)",
  ),
] as const;

export const RUNS_PRUNE_OPTIONS = [
  parsed('--older-than <duration>', 'remove finished runs started longer ago than this, e.g. 30d, 12h, "1w 2d" (default 30d)', duration('--older-than')),
  option('--all', 'also remove interrupted runs past the same age and count (never a running one)'),
] as const;

export type RunsShowOptions = OptionsOf<typeof RUNS_SHOW_OPTIONS> & GlobalOptions;
export type RunsResumeOptions = OptionsOf<typeof RUNS_RESUME_OPTIONS> & GlobalOptions;
export type RunsPruneOptions = OptionsOf<typeof RUNS_PRUNE_OPTIONS> & GlobalOptions;
