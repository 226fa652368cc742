import { argument, brief, grouped, HELP_GROUP, mandatory, option, repeatable } from '../../flags/option-table.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { SYNC_DIR_OPTION } from './sync-options.js';
import { ENCODING_OPTION, RECORD_INPUT_OPTIONS, SHEET_OPTIONS, WHOLE_FILE_OPTIONS } from './file-options.js';
import { SCHEDULE_FILE_OPTIONS, SCHEDULE_REQUEST_OPTIONS } from './schedule-push.options.js';
import { TARGET_FLAGS } from '../../flags/taken-flags.js';

const SYNCED_EXPORT_OPTIONS = [
  brief(
    'the file to write (0600)',
    mandatory(
      '--out <file>',
      'write the memory to this file (0600; it holds names and links): keep it where CI does not evict it, e.g. an artifact of every night',
    ),
  ),
  SYNC_DIR_OPTION,
] as const;
const SYNCED_IMPORT_OPTIONS = [
  argument('file', '<file>', 'a file of examctl synced export'),
  brief(
    'replace a memory newer than the file',
    option(
      '--force',
      "replace the memory even when the file's newest run is older than the memory's (what the runs since sent is forgotten)",
    ),
  ),
  SYNC_DIR_OPTION,
] as const;
const SYNCED_ADOPT_OPTIONS = [
  ...grouped(HELP_GROUP.input, [
    brief('last fully synced export; repeat for later nights, in order', {
      ...repeatable(
        '-f, --file <path>',
        'the last export that was fully synced (users as user sync reads them: CSV, .xlsx, JSON, NDJSON); repeat for each night since, in order',
      ),
      mandatory: true,
    }),
    brief(
      'the files were sent, their outcome not known',
      option(
        '--tentative',
        'record the files as requests whose outcome is not known (a night cut short): each row goes again, and a new id missing from the next file is disabled',
      ),
    ),
    brief(
      undefined,
      option(
        '--population <name>',
        'the --population that export is the whole of (none: the runs without --population)',
      ),
      'none',
    ),
  ] as const),
  ...WHOLE_FILE_OPTIONS,
  SYNC_DIR_OPTION,
] as const;
const SYNCED_ADOPT_COLLECTIONS_OPTIONS = [
  ...grouped(HELP_GROUP.input, [
    brief(
      'the collections checked on the platform',
      mandatory(
        '-f, --file <path>',
        'the collections to record as examctl made them (as collection add reads them: JSON, CSV or .xlsx), each checked on the platform first',
      ),
    ),
    ...SHEET_OPTIONS,
    ENCODING_OPTION,
    ...RECORD_INPUT_OPTIONS,
  ] as const),
  SYNC_DIR_OPTION,
] as const;
export type SyncDirOnlyOptions = CommandOptions<typeof SYNCED_SHOW>;
export type SyncedExportOptions = CommandOptions<typeof SYNCED_EXPORT>;
export type SyncedImportOptions = CommandOptions<typeof SYNCED_IMPORT>;
export type SyncedAdoptOptions = CommandOptions<typeof SYNCED_ADOPT>;
export type SyncedAdoptSchedulesOptions = CommandOptions<typeof SYNCED_ADOPT_SCHEDULES>;
export type SyncedAdoptCollectionsOptions = CommandOptions<typeof SYNCED_ADOPT_COLLECTIONS>;
export type SyncedUnlockOptions = CommandOptions<typeof SYNCED_UNLOCK>;

export const SYNCED_SHOW = declareCommand({
  path: ['synced', 'show'],
  description:
    'every sync memory: target, kind, ids remembered, leavers disabled, each population with its newest run and count, file',
  examples: [
    'examctl synced show',
    'examctl synced show --json',
    'EXAMCTL_SYNC_DIR=https://gitlab.example.com/api/v4/projects/42/terraform/state/examctl examctl synced show',
  ],
  options: [SYNC_DIR_OPTION] as const,
  takes: ['--dry-run'],
});

export const SYNCED_FORGET = declareCommand({
  path: ['synced', 'forget'],
  description:
    'forget the target\'s sync memory (the usual target flags choose it): the next sync sends every record and disables no leaver (docs/sync.md, "When the memory is lost")',
  examples: ['examctl synced forget --profile prod', 'examctl synced forget --target local --store ./store'],
  options: [SYNC_DIR_OPTION] as const,
  takes: TARGET_FLAGS,
});

export const SYNCED_EXPORT = declareCommand({
  path: ['synced', 'export'],
  description:
    "the target's whole sync memory (users, schedules and collections, every population) as one file, naming the target, the store instance, the format and the newest run, with a checksum; " +
    'keep it where CI does not evict it (docs/ci.md)',
  examples: [
    'examctl synced export --profile prod --out sync-memory.json',
    'examctl synced export --target local --store ./store --out memory.json --json',
  ],
  options: SYNCED_EXPORT_OPTIONS,
  takes: TARGET_FLAGS,
});

export const SYNCED_IMPORT = declareCommand({
  path: ['synced', 'import'],
  description:
    "replace the target's sync memory with a file of synced export, under the memory's lock: refused (exit 2) for a file of another target or store instance, " +
    'a damaged one, one older than the memory already there, or one exported while a run still wrote (--force)',
  examples: [
    'examctl synced import sync-memory.json --profile prod',
    'examctl synced import memory.json --sync-dir "$EXAMCTL_SYNC_DIR" --yes',
  ],
  options: SYNCED_IMPORT_OPTIONS,
  takes: TARGET_FLAGS,
});

export const SYNCED_ADOPT = declareCommand({
  path: ['synced', 'adopt'],
  description:
    'rebuild a lost sync memory from the last export that was fully synced: its valid rows recorded as sent and acknowledged for this target and --population, ' +
    'exactly as a real run of it leaves the memory (digests, names, links and flags); nothing is sent. On a local store, a row the store does not hold as the last file gives it is not adopted (exit 1). --dry-run shows what it would record',
  examples: [
    'examctl synced adopt --file staff-2026-11-20.csv --population staff --profile prod --dry-run',
    'examctl synced adopt --file students-2026-11-20.csv --population students --map "Student ID=ExternalId" --profile prod',
  ],
  options: SYNCED_ADOPT_OPTIONS,
  takes: [...TARGET_FLAGS, '--dry-run'],
  reads: 'users',
});

export const SYNCED_ADOPT_SCHEDULES = declareCommand({
  path: ['synced', 'adopt-schedules'],
  description:
    'rebuild a lost sync memory of schedules from the last sittings file that was fully pushed: each schedule request with a ScheduleExtId recorded as sent and acknowledged, ' +
    'with its candidates, as schedule push --upsert leaves the memory; nothing is sent. On a local store, a schedule the store does not hold as the file gives it is not adopted (exit 1). Give the flags that file was pushed with',
  examples: [
    'examctl synced adopt-schedules --file sittings.csv --upsert --profile prod --dry-run',
    'EXAMCTL_PIN=4821 examctl synced adopt-schedules --file candidates.csv --schedule-id S-MATH1-DEC --assessment A-MATH-1 --start 2026-12-14T09:00:00Z --upsert --profile prod',
  ],
  options: [...SCHEDULE_FILE_OPTIONS, ...WHOLE_FILE_OPTIONS, ...SCHEDULE_REQUEST_OPTIONS, SYNC_DIR_OPTION] as const,
  takes: [...TARGET_FLAGS, '--dry-run'],
  reads: 'schedules',
});

export const SYNCED_ADOPT_COLLECTIONS = declareCommand({
  path: ['synced', 'adopt-collections'],
  description:
    "record collections as examctl made them on the target, with the file's fields, as collection add leaves the memory after an ok: " +
    'for collections checked on the platform whose request was cut short (collection add --existing ok fails those, docs/sync.md, "Collections"); nothing is sent',
  examples: [
    'examctl synced adopt-collections --file collections.json --profile prod --dry-run',
    'examctl synced adopt-collections --file collections.json --profile prod',
  ],
  options: SYNCED_ADOPT_COLLECTIONS_OPTIONS,
  takes: [...TARGET_FLAGS, '--dry-run'],
  reads: 'collections',
});

export const SYNCED_UNLOCK = declareCommand({
  path: ['synced', 'unlock'],
  description:
    "release the lock a killed run left on a state service's sync memory (as terraform force-unlock): only when that run no longer runs",
  examples: [
    '# in the job whose EXAMCTL_SYNC_DIR names the state service: the lock id its refusal named',
    'examctl synced unlock 6f1c0e9a-0c7e-4b9e-9a55-5b0e1c2d3e4f',
    'examctl synced unlock 6f1c0e9a-0c7e-4b9e-9a55-5b0e1c2d3e4f --sync-dir https://gitlab.example.com/api/v4/projects/42/terraform/state/examctl',
  ],
  options: [
    argument('lockId', '<lock-id>', 'the lock id the refusal named (the ID of the lock info)'),
    SYNC_DIR_OPTION,
  ] as const,
  takes: [],
});
