import { describe, expect, it } from 'vitest';
import { collectionEntryOf, scheduleEntryOf } from '../../src/sync/adopt.js';
import { sittingsOnStore, usersOnStore } from '../../src/sync/adopt-sittings.js';
import type { PreparedSchedule } from '../../src/domain/sittings.js';
import type { ScheduleRequest } from '../../src/domain/schedule.js';

// `synced adopt`'s refusals of a row (docs/sync.md, "When the memory is lost"): examctl's own codes.
const schedule = (id: string | undefined, candidates: string[] = []): PreparedSchedule => ({
  request: {
    Schedule: { ScheduleExtId: id, AssessmentExtId: 'A-1', StartDateTime: '2026-12-01T09:00:00.000Z' },
    Candidates: candidates.map((CandidateExtId) => ({ CandidateExtId })),
  } as unknown as ScheduleRequest,
  candidateLines: candidates.map((_, i) => i + 2),
});

describe('synced adopt: rows it cannot adopt', () => {
  it('a schedule or collection without its id: 9020 on that id field', () => {
    expect(scheduleEntryOf(schedule(undefined))).toMatchObject({ field: 'ScheduleExtId', code: 9020 });
    expect(collectionEntryOf({ Title: 'T' } as never)).toMatchObject({ field: 'ExternalId', code: 9020 });
  });

  it('a user, a schedule or candidates the local store does not hold: 9019, the candidates counted', () => {
    const user = usersOnStore(
      () => ({ digest: 'd' }) as never,
      { storedUserOf: () => null, membershipsOf: () => [] } as never,
      true,
    );
    expect(user({ ExternalId: 'u-1' } as never, undefined)).toMatchObject({ field: 'ExternalId', code: 9019 });
    const absent = { scheduleLinks: () => null, scheduleChanges: () => null };
    expect(sittingsOnStore(absent)(schedule('S-1'), undefined)).toMatchObject({
      field: 'ScheduleExtId',
      code: 9019,
    });
    const held = (changes: { changed: string[] } | { refused: string }) => ({
      scheduleLinks: () => ({ Candidates: [{ CandidateExtId: 'C-1' }] }) as never,
      scheduleChanges: () => changes,
    });
    const missing = sittingsOnStore(held({ changed: ['Candidates'] }))(
      schedule('S-1', ['c-1', 'c-2', 'c-3']),
      undefined,
    );
    expect(missing).toMatchObject({ field: 'CandidateExtId', code: 9019 });
    expect((missing as { message: string }).message).toMatch(/^2 of its candidates/);
  });

  it('a schedule the local store holds with other values: 9019 on its first field, three named then a count; one it would refuse: 9019 with the reason', () => {
    const adopt = (changes: { changed: string[] } | { refused: string }) =>
      sittingsOnStore({
        scheduleLinks: () => ({ Candidates: [{ CandidateExtId: 'C-1' }] }) as never,
        scheduleChanges: () => changes,
      })(schedule('S-1', ['C-1']), undefined);
    expect(adopt({ changed: [] })).toMatchObject({ candidates: ['C-1'] });
    const other = adopt({ changed: ['Title', 'StartDateTime', 'EndDateTime', 'PIN'] });
    expect(other).toMatchObject({ field: 'Title', code: 9019 });
    expect((other as { message: string }).message).toContain('(Title, StartDateTime, EndDateTime and 1 more)');
    const refused = adopt({ refused: 'Assessment A-1 not found' });
    expect(refused).toMatchObject({ field: 'ScheduleExtId', code: 9019 });
    expect((refused as { message: string }).message).toContain('Assessment A-1 not found');
  });
});
