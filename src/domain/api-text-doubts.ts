/**
 * Where examctl's client is wider than the API text's words, or warns within them: docs/domain-rules.md,
 * "Where the API text and examctl differ" and "Warnings within the API text" (a PIN never quoted). Pure.
 */
import { quotedValue, type Validation } from './problem.js';
import { COLLECTION_EXTERNAL_ID_MESSAGE } from './collection.js';
import type { FieldWarning } from './spreadsheet-warnings.js';
import { WARNING_CODES } from './codes.js';
import type { CollectionRequest, Schedule } from './types.js';

const UPPER_CASE = /[A-Z]/;

/** A collection as the client checks it: an upper-case ExternalId judged as lower case, sent with a warning. */
export function collectionForSending(
  fields: Record<string, unknown>,
  validate: (fields: Record<string, unknown>) => Validation<CollectionRequest>,
): { prepared: Validation<CollectionRequest>; warnings: FieldWarning[] } {
  const id = fields.ExternalId;
  if (typeof id !== 'string' || !UPPER_CASE.test(id)) return { prepared: validate(fields), warnings: [] };
  const prepared = validate({ ...fields, ExternalId: id.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) });
  if (!prepared.ok) return { prepared, warnings: [] };
  return {
    prepared: { ok: true, value: { ...prepared.value, ExternalId: id } },
    warnings: [
      {
        field: 'ExternalId',
        code: WARNING_CODES.WiderThanApiText,
        message:
          `ExternalId ${quotedValue(id)} has upper-case letters: the API text says "Alphanumeric, a-z and 0-9" ` +
          `(code 802, "${COLLECTION_EXTERNAL_ID_MESSAGE}"); examctl sends it as given, the service may refuse it with code 802`,
      },
    ],
  };
}

/**
 * The warnings of a valid schedule (fields named `Schedule.PIN`); `pinFromNumberCell`: the PIN was a number
 * cell's digits, where a typed leading zero is already gone.
 */
export function scheduleTextDoubts(
  schedule: Schedule,
  { pinFromNumberCell = false }: { pinFromNumberCell?: boolean } = {},
): FieldWarning[] {
  const pin = schedule.PIN;
  if (typeof pin !== 'string' || pin === '' || /^[0-9]{4}$/.test(pin)) return [];
  return [
    {
      field: 'Schedule.PIN',
      code: WARNING_CODES.WiderThanApiText,
      message:
        'PIN is not four digits: the API text says only string(4), "PIN for candidates"; examctl sends it as given, ' +
        'the service may refuse it or candidates may not be able to type it' +
        (pinFromNumberCell
          ? '; its cell was a number, and a number cell drops leading zeros: format the PIN column as text and type the PIN again'
          : ''),
    },
  ];
}
