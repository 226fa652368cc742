import { allKept, choice, grouped, HELP_GROUP, option, brief } from '../../flags/option-table.js';
import { COLLECTION_FIELD_OPTIONS } from '../../flags/collection-fields.js';
import { SYNC_DIR_OPTION } from './sync-options.js';
import { PLAN_OUT_OPTION } from './plan-option.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { FILE_OPTIONS } from './file-options.js';
import { SENDING_FLAGS, TARGET_FLAGS } from '../../flags/taken-flags.js';

const COLLECTION_ADD_OPTIONS = allKept([
  ...grouped(HELP_GROUP.input, [
    brief(
      'collections: JSON object(s), CSV or .xlsx',
      option(
        '-f, --file <path>',
        'collections as JSON object(s), CSV or .xlsx with API field names (or others read with --map/--map-file)',
      ),
      'one from the flags',
    ),
  ] as const),
  ...FILE_OPTIONS,
  ...COLLECTION_FIELD_OPTIONS,
  ...grouped(HELP_GROUP.request, [
    brief(
      'an ExternalId used (810): ok if examctl sent it as is',
      choice(
        '--existing <fail|ok>',
        'an ExternalId used already (810): fail (default), or ok when examctl sent this target that very collection before (reported unchanged; other fields fail, naming them: the API cannot update a collection)',
        ['fail', 'ok'],
      ),
      'fail',
    ),
  ] as const),
  SYNC_DIR_OPTION,
  PLAN_OUT_OPTION,
] as const);

export type CollectionAddOptions = CommandOptions<typeof COLLECTION_ADD>;

export const COLLECTION_ADD = declareCommand({
  path: ['collection', 'add'],
  description: 'create collections (POST /collections) from flags or from --file (one JSON object or an array)',
  examples: [
    'examctl collection add --title "Physics 2027" --external-id physics2027 --taxonomy TX-BLOOM --repository LO-CORE',
    '# on a terminal without --title: asks for it',
    'examctl collection add',
    '# several at once from a JSON array, with a report',
    'examctl collection add --file collections.csv --report result.csv',
    '# fix the failed rows in result.csv, then send only those',
    'examctl collection add --file result.csv --only-failed --report retry.csv',
    '# a CI job that may run twice: a collection examctl sent before, unchanged, is ok',
    'examctl collection add --file collections.json --existing ok --yes',
  ],
  options: COLLECTION_ADD_OPTIONS,
  takes: [...TARGET_FLAGS, ...SENDING_FLAGS],
  reads: 'collections',
  resume: 'rerun',
});
