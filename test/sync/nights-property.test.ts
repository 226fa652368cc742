/**
 * The sync memory over random histories of nights on the local store (test/support/nights-history.ts
 * says what a history is and what is checked after each). Half the local histories run here, the
 * other half beside those through `local serve` (nights-property-served.test.ts): vitest runs the two
 * files side by side. NIGHTS_HISTORIES (all local histories, both files) and NIGHTS_SERVED_HISTORIES
 * set how many a run tries (a search for more).
 */
import { describe, it } from 'vitest';
import { checkHistories, FOUND, nightsTemplate } from '../support/nights-history.js';

nightsTemplate();

describe('the sync memory over random histories of nights (docs/sync.md, "Where the store stands")', () => {
  it(
    'on the local store: every run that ends leaves the store as its file says, and nothing the store held is sent but what a restore undid',
    () => checkHistories(false, Math.ceil(Number(process.env.NIGHTS_HISTORIES ?? 500) / 2), FOUND),
    600_000,
  );
});
