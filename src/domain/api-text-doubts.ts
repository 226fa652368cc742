/**
 * Where examctl's reading of the API text is wider than the text's own words (docs/domain-rules.md,
 * "Where the API text and examctl differ"): the record stays valid and is sent, with a warning
 * that quotes the API's words, because the service may refuse it. Pure; each doubt reads the
 * validated wire value. A message never quotes a PIN (a secret).
 */
import type { FieldWarning } from './spreadsheet-warnings.js';
import { WARNING_CODES } from './codes.js';
import type { CollectionRequest, Schedule } from './types.js';

interface Doubt<R> {
  field: keyof R & string;
  /** True when the value is outside the API text's words. */
  applies(value: string): boolean;
  message(value: string): string;
}

const quoted = (value: string) => JSON.stringify(value);

const COLLECTION_DOUBTS: readonly Doubt<CollectionRequest>[] = [
  {
    field: 'ExternalId',
    applies: (value) => /[A-Z]/.test(value),
    message: (value) =>
      `ExternalId ${quoted(value)} has upper-case letters: the API text says "Alphanumeric, a-z and 0-9" ` +
      '(code 802, "ExternalId must be alphanumeric (a-z, 0-9)"); examctl sends it as given, the service may refuse it with code 802',
  },
];

const SCHEDULE_DOUBTS: readonly Doubt<Schedule>[] = [
  {
    field: 'ProctoringServiceTemplateExternalId',
    applies: (value) => value.includes('-'),
    message: (value) =>
      `ProctoringServiceTemplateExternalId ${quoted(value)} has a dash: the API text says "Alphanumeric" ` +
      '(its neighbours say "Alphanumeric and dashes"); examctl sends it as given, the service may refuse it (the API numbers no code for it)',
  },
  {
    field: 'PIN',
    applies: (value) => !/^[0-9]{4}$/.test(value),
    message: () =>
      'PIN is not four digits: the API text says only string(4), "PIN for candidates"; examctl sends it as given, ' +
      'the service may refuse it or candidates may not be able to type it',
  },
];

function doubtsOf<R>(doubts: readonly Doubt<R>[], record: R, prefix: string): FieldWarning[] {
  const warnings: FieldWarning[] = [];
  for (const doubt of doubts) {
    const value: unknown = record[doubt.field];
    if (typeof value === 'string' && value !== '' && doubt.applies(value)) warnings.push({ field: `${prefix}${doubt.field}`, code: WARNING_CODES.WiderThanApiText, message: doubt.message(value) });
  }
  return warnings;
}

/** The warnings of a valid collection request. */
export function collectionTextDoubts(collection: CollectionRequest): FieldWarning[] {
  return doubtsOf(COLLECTION_DOUBTS, collection, '');
}

/** The warnings of a valid schedule (fields named `Schedule.PIN`, as the request's problems are). */
export function scheduleTextDoubts(schedule: Schedule): FieldWarning[] {
  return doubtsOf(SCHEDULE_DOUBTS, schedule, 'Schedule.');
}
