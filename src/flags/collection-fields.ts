import { brief, grouped, HELP_GROUP, option, type OptionsOf, repeatable } from './option-table.js';
import { excluding } from './flag-pairs.js';

/** The flags that give one collection's fields; with --file the fields come from the file instead. */
export const COLLECTION_FIELD_OPTIONS = grouped(HELP_GROUP.collectionFields, [
  ...excluding(['--file'], 'put the fields in the file', [
    brief('Title, under 100 characters', option('--title <title>', 'Title (required, under 100 characters)'), 'asked'),
    brief(
      'ExternalId: a-z and 0-9',
      option(
        '--external-id <id>',
        'ExternalId: a-z and 0-9 (upper case is sent with a warning; generated when absent)',
      ),
      'generated',
    ),
    brief(
      undefined,
      option('--owner <username>', 'Owner user name (default: the API settings owner)'),
      'API settings owner',
    ),
    brief(
      'taxonomy ExternalId; repeatable',
      repeatable('--taxonomy <id>', 'taxonomy ExternalId; repeat for several (none: all taxonomies)'),
      'all taxonomies',
    ),
    brief(
      'learning objective repository ExternalId; repeatable',
      repeatable('--repository <id>', 'learning objective repository ExternalId; repeat for several (none: all)'),
      'all',
    ),
  ] as const),
] as const);

export type CollectionFieldFlags = OptionsOf<typeof COLLECTION_FIELD_OPTIONS>;
