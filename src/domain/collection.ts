/** POST /collections (docs/api-reference.md, "Collection", codes 802-1004; docs/interpretations.md, "Collections"). */
import { ErrorCode, type ProblemCode, UNNUMBERED } from './codes.js';
import type { Problem, Validation } from './problem.js';
import {
  checkList,
  codeNote,
  forbiddenNameCharacterMessage,
  NAME_CHARACTERS_DOC,
  isPlainObject,
  isGiven,
  notAString,
  ruleTable,
  stringRule,
  validateFields,
  type FieldRule,
  tableWire,
  textPattern,
  type FieldOf,
  type RecordOf,
  type RuleTable,
} from './field-rules.js';
import { codePointLength, hasForbiddenNameCharacter, LOWER_ALNUM } from './text-rules.js';

/** The API text's message of code 802. */
export const COLLECTION_EXTERNAL_ID_MESSAGE = 'ExternalId must be alphanumeric (a-z, 0-9)';

/** "Shorter than 100 symbols": 100 characters is already too long (805). */
const COLLECTION_TITLE_LIMIT = 100;

const titleRule: FieldRule<'Title', string, true> = {
  name: 'Title',
  required: true,
  wire: (zod) =>
    zod
      .string()
      .min(1)
      .max(COLLECTION_TITLE_LIMIT - 1)
      .regex(textPattern(true, true) as RegExp)
      .describe(
        `Required, not blank${codeNote(ErrorCode.CollectionTitleEmpty)}; shorter than ${COLLECTION_TITLE_LIMIT} characters${codeNote(ErrorCode.CollectionTitleTooLong)}. ` +
          NAME_CHARACTERS_DOC,
      ),
  check(value, path, problems) {
    if (!isGiven(value)) {
      problems.push({
        field: path,
        code: ErrorCode.CollectionTitleEmpty,
        message: 'Title is required and must not be empty',
      });
      return undefined;
    }
    if (typeof value !== 'string') return notAString('Title', path, problems);
    if (hasForbiddenNameCharacter(value)) {
      problems.push({ field: path, code: UNNUMBERED, message: forbiddenNameCharacterMessage('Title') });
      return undefined;
    }
    if (value.length >= COLLECTION_TITLE_LIMIT && codePointLength(value) >= COLLECTION_TITLE_LIMIT) {
      problems.push({
        field: path,
        code: ErrorCode.CollectionTitleTooLong,
        message: `Title must be shorter than ${COLLECTION_TITLE_LIMIT} characters`,
      });
      return undefined;
    }
    return value;
  },
};

interface IdTitleListSpec<Name extends string> {
  name: Name;
  /** Code for an entry that is null or an empty object (901 for taxonomies). */
  emptyEntryCode: ProblemCode;
  /** Code for an entry whose ExternalId is null or empty (902 / 1004). */
  emptyIdCode: ProblemCode;
  what: string;
}

/** Entry lengths examctl bounds where the API text says only "(string)" (docs/interpretations.md, "Field rules"). */
const ENTRY_ID_MAX = 64;
const ENTRY_TITLE_MAX = 500;

/** How a list's check reads one entry: an empty ExternalId is left to the list, which numbers it (902 / 1004). */
const entryTitleRule = stringRule('Title', { max: ENTRY_TITLE_MAX });
const ID_TITLE_ENTRY_CHECK: RuleTable = ruleTable('list entry', [
  stringRule('ExternalId', { max: ENTRY_ID_MAX }),
  entryTitleRule,
]);

/** The entry's ExternalId as every list requires it: what the document and docs/api-reference.md say of it. */
const listEntryIdRule = stringRule('ExternalId', {
  max: ENTRY_ID_MAX,
  required: null,
  doc: 'Every list requires it: empty in Taxonomies is code 902, in the repository lists code 1004.',
});

/** One entry of Taxonomies, LoRepositoryExternalIds or ObjectiveRepositories (docs/api-reference.md). */
export const ID_TITLE_ENTRY_TABLE = ruleTable('list entry', [listEntryIdRule, entryTitleRule]);
export type IdTitle = RecordOf<typeof ID_TITLE_ENTRY_TABLE>;

/** A list of { ExternalId, Title } objects; null or absent means "all available" and is left out. */
function idTitleListRule<const Name extends string>(spec: IdTitleListSpec<Name>): FieldRule<Name, IdTitle[], false> {
  const { name, emptyEntryCode, emptyIdCode, what } = spec;
  return {
    name,
    cell: 'idTitleList',
    // ExternalId is optional in the entry's check, and this list requires it with its own code (902 / 1004).
    wire: (zod) =>
      zod
        .array(tableWire(zod, ID_TITLE_ENTRY_TABLE))
        .describe(
          `Null or absent: all available. Entries must not be null or {}${codeNote(emptyEntryCode)}; ` +
            `each ${what} needs a non-empty ExternalId${codeNote(emptyIdCode)}.`,
        ),
    check(value, path, problems) {
      return checkList(value, path, problems, name, 'objects with ExternalId and Title', (entry, at) => {
        if (entry === null || entry === undefined || (isPlainObject(entry) && Object.keys(entry).length === 0)) {
          problems.push({ field: at, code: emptyEntryCode, message: `A ${what} entry must not be empty` });
          return undefined;
        }
        const idTitle = validateFields(entry, ID_TITLE_ENTRY_CHECK, `${at}.`, problems);
        if (idTitle === null) return undefined;
        const id = (entry as Record<string, unknown>)['ExternalId'];
        if (!isGiven(id)) {
          problems.push({
            field: `${at}.ExternalId`,
            code: emptyIdCode,
            message: `The ExternalId of a ${what} must not be empty`,
          });
          return undefined;
        }
        return idTitle as IdTitle;
      });
    },
  };
}

export const COLLECTION_TABLE = ruleTable('collection', [
  // The API text's letter: the engine, `local serve` and the document refuse upper case (802);
  // examctl's client sends it with a warning (api-text-doubts.ts, collectionForSending).
  stringRule('ExternalId', {
    max: 64,
    pattern: LOWER_ALNUM,
    patternCode: ErrorCode.CollectionExternalIdInvalid,
    patternHint: 'lower-case letters and digits (a-z, 0-9)',
    patternMessage: COLLECTION_EXTERNAL_ID_MESSAGE,
  }),
  titleRule,
  stringRule('Owner', { max: 64 }),
  idTitleListRule({
    name: 'Taxonomies',
    emptyEntryCode: ErrorCode.TaxonomyEmpty,
    emptyIdCode: ErrorCode.TaxonomyExternalIdEmpty,
    what: 'taxonomy',
  }),
  // The parameter-list name; merged with ObjectiveRepositories (docs/interpretations.md, "Collections").
  idTitleListRule({
    name: 'LoRepositoryExternalIds',
    emptyEntryCode: ErrorCode.RepositoryExternalIdEmpty,
    emptyIdCode: ErrorCode.RepositoryExternalIdEmpty,
    what: 'repository',
  }),
  idTitleListRule({
    name: 'ObjectiveRepositories',
    emptyEntryCode: ErrorCode.RepositoryExternalIdEmpty,
    emptyIdCode: ErrorCode.RepositoryExternalIdEmpty,
    what: 'repository',
  }),
]);

/** POST /collections' body as COLLECTION_TABLE's checks return it: the table is the one declaration of its fields. */
export type CollectionRequest = RecordOf<typeof COLLECTION_TABLE>;
export type CollectionField = FieldOf<typeof COLLECTION_TABLE>;

export function validateCollection(input: unknown): Validation<CollectionRequest> {
  const problems: Problem[] = [];
  const out = validateFields(input, COLLECTION_TABLE, '', problems);
  if (problems.length > 0 || out === null) return { ok: false, problems };
  return { ok: true, value: out };
}
