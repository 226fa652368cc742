import { argument, option, parsed, brief } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { dateOrAge, duration } from '../../flags/flag-values.js';
import { TARGET_FLAGS } from '../../flags/taken-flags.js';
import { PRUNE_KEEP_FINISHED, PRUNE_MAX_AGE_DAYS } from '../../defaults.js';

const RUNS_LIST_OPTIONS = [
  brief(
    'only runs started since a date or an age (7d, 12h)',
    parsed(
      '--since <date-or-age>',
      'only runs started at or after this: a date (2026-11-01 is that day 00:00 UTC), an RFC 3339 instant with its zone, or an age (7d, 12h: that long ago)',
      dateOrAge('--since'),
    ),
    'every run',
  ),
] as const;

const RUNS_RESUME_OPTIONS = [
  argument('id', '[id]', 'the run to resume (default: the newest run, if interrupted; "last" is the newest run)'),
  brief(
    'the PIN the run was started with (prefer --pin-file)',
    option(
      '--pin <pin>',
      'the schedule PIN the run was started with (its journal keeps only a hash, so a resume asks for it); shows in `ps` to every user: prefer --pin-file or EXAMCTL_PIN',
    ),
  ),
  brief(
    'read that PIN from this file (or EXAMCTL_PIN)',
    option(
      '--pin-file <file>',
      'read that PIN from this file (one line); EXAMCTL_PIN gives it too; on a terminal it is asked',
    ),
    'asked',
  ),
  brief(
    "send to the run's recorded target, whatever today's flags say",
    option(
      '--target-from-run',
      "send to the run's recorded base URL, token file, profile and --allow-insecure-http even where they differ from today's flags, environment and profile (--yes alone does not)",
    ),
  ),
  brief(
    'resume although a later run went to the same target',
    option(
      '--over-later-runs',
      'resume even though a later run of the same command went to the same target since, in this runs directory or (recorded by the sync memory) another (refused without it: this run would send its older rows over theirs; --yes alone does not)',
    ),
  ),
  brief(
    '--over-later-runs, and resume without the sync memory the run decided from',
    option(
      '--force',
      'resume even though a later run is on record (as --over-later-runs), and even though the sync memory a --changed-only, --disable-missing or --prune-memberships run decided from was lost since (it then decides as a first night)',
    ),
  ),
] as const;

const RUNS_PRUNE_OPTIONS = [
  brief(
    'remove finished runs older than this, e.g. 7d, 12h',
    parsed(
      '--older-than <duration>',
      `remove finished runs started longer ago than this, e.g. 7d, 12h, "1w 2d" (default ${PRUNE_MAX_AGE_DAYS}d)`,
      duration('--older-than'),
    ),
    `${PRUNE_MAX_AGE_DAYS}d`,
  ),
  brief(
    'also remove interrupted runs (never a running one)',
    option('--all', 'also remove interrupted runs past the same age and count (never a running one)'),
  ),
] as const;

export type RunsListOptions = CommandOptions<typeof RUNS_LIST>;
export type RunsShowOptions = CommandOptions<typeof RUNS_SHOW>;
export type RunsResumeOptions = CommandOptions<typeof RUNS_RESUME>;
export type RunsPruneOptions = CommandOptions<typeof RUNS_PRUNE>;

export const RUNS_LIST = declareCommand({
  path: ['runs', 'list'],
  description:
    'every run in the runs directory, newest first: id, command, state (finished, interrupted, running), counts',
  examples: [
    'examctl runs list',
    'examctl runs list --since 7d --json',
    'examctl runs list --since 2026-11-01',
    'examctl --runs-dir /var/lib/examctl/runs runs list',
  ],
  options: RUNS_LIST_OPTIONS,
  takes: ['--dry-run'],
});

export const RUNS_SHOW = declareCommand({
  path: ['runs', 'show'],
  description:
    "a run's report rebuilt from its journal, finished or not; every input row once when the input is unchanged",
  examples: [
    'examctl runs show last',
    'examctl runs show 20261122T110502.481Z-3f9a --json',
    'examctl runs show last --report result.csv',
  ],
  options: [argument('id', '<id>', 'a run id from examctl runs list, or "last"')] as const,
  takes: ['--profile', '--dry-run', '--report'],
  resume: { notResumable: 'it only reads a journal and sends nothing: run it again' },
});

export const RUNS_RESUME = declareCommand({
  path: ['runs', 'resume'],
  description:
    'continue a killed or stopped run (default: the newest unfinished one) with its recorded options and target;\n' +
    'sends what was never answered, keeps what was. Refused (exit 2) when the run finished, another process holds it,\n' +
    'or its input file changed. The token comes from the usual sources; a run with --pin needs the same --pin again.',
  examples: [
    'examctl runs resume',
    'examctl runs resume 20261122T110502.481Z-3f9a --yes',
    '# a schedule push with a PIN: give the same PIN again (the journal keeps only its hash)',
    'EXAMCTL_PIN=4821 examctl runs resume last --json',
  ],
  options: RUNS_RESUME_OPTIONS,
  takes: [...TARGET_FLAGS, '--report'],
  resume: { notResumable: 'it continues the journal of the run it resumed: resume that run again' },
});

export const RUNS_PRUNE = declareCommand({
  path: ['runs', 'prune'],
  description:
    `remove finished runs older than ${PRUNE_MAX_AGE_DAYS} days (--older-than) or beyond the newest ${PRUNE_KEEP_FINISHED}; ` +
    '--all also interrupted ones',
  examples: ['examctl runs prune', 'examctl runs prune --older-than 7d --all --json'],
  options: RUNS_PRUNE_OPTIONS,
  takes: [],
});
