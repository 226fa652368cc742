/**
 * The sync memory over random histories of nights (test/support/nights-history.ts): the other half
 * of the local histories (nights-property.test.ts runs the first), and histories through `local serve`.
 * Each test starts with the found histories, so every kind of step happens however few run.
 */
import { describe, it } from 'vitest';
import { checkHistories, FOUND, nightsTemplate, SERVED_FIRST_NIGHT } from '../support/nights-history.js';

nightsTemplate();

describe('the sync memory over random histories of nights (docs/sync.md, "Where the store stands")', () => {
  it(
    'on the local store, more: the same',
    () => checkHistories(false, Math.floor(Number(process.env.NIGHTS_HISTORIES ?? 500) / 2), FOUND),
    600_000,
  );

  it(
    'through local serve: the same',
    () => checkHistories(true, Number(process.env.NIGHTS_SERVED_HISTORIES ?? 50), [...FOUND, SERVED_FIRST_NIGHT]),
    600_000,
  );
});
