import { describe, expect, it } from 'vitest';
import { entryBody, entryOfBody, type EntryBody, type MemoryEntry } from '../../src/sync/memory-lines.js';
import { sentBefore, sentFields, userChanges } from '../../src/sync/user-changes.js';
import { acknowledgedUser } from '../../src/sync/user-sync-memory.js';
import type { UserRequest } from '../../src/domain/types.js';

/** A user's memory entry keeps each field examctl last sent (docs/plan.md, "Before and after"). */

const request = (fields: Record<string, unknown>) => ({ ExternalId: 'u-1', ...fields }) as UserRequest;

describe('a user entry keeps what examctl last sent', () => {
  it('keeps every field sent but the id, names, email, password and memberships; a field left out keeps its value', () => {
    const first = acknowledgedUser(
      request({
        FirstName: 'Ada',
        LastName: 'Ng',
        Email: 'ada@example.test',
        Role: 'Candidate',
        Labels: ['a'],
        Password: 'secret-1',
        Hierarchies: [{ ExternalId: 'H-1' }],
        SpecialNeeds: false,
      }),
      request({}),
      undefined,
      undefined,
      false,
      undefined,
    );
    expect(first.sent).toEqual({ Role: 'Candidate', Labels: ['a'], SpecialNeeds: false });
    expect(JSON.stringify(first)).not.toContain('secret-1');
    // A leaver's disable sends names and DisableLogin only: the role sent before stays known.
    const leaver = acknowledgedUser(
      request({ FirstName: 'Ada', LastName: 'Ng', DisableLogin: true }),
      request({}),
      undefined,
      undefined,
      true,
      undefined,
      { digest: 'd', run: 'r', ...first },
    );
    expect(leaver.sent).toEqual({ Role: 'Candidate', Labels: ['a'], SpecialNeeds: false, DisableLogin: true });
    expect(sentFields(request({ FirstName: 'Ada' }), undefined)).toBeUndefined();
  });

  it('written as `v` and read back; a line without it (an older examctl) reads with those fields unknown', () => {
    const entry: MemoryEntry = { digest: 'd', run: 'r', lastName: 'Ng', sent: { Role: 'Candidate', Labels: ['a'] } };
    const body = JSON.parse(entryBody('u-1', entry)) as Partial<EntryBody>;
    expect(body.v).toEqual({ Role: 'Candidate', Labels: ['a'] });
    const read = entryOfBody(body);
    expect(read).toEqual({ id: 'u-1', entry });
    const older = entryOfBody({ id: 'u-1', d: 'd', r: 'r', l: 'Ng' });
    expect(older).toEqual({ id: 'u-1', entry: { digest: 'd', run: 'r', lastName: 'Ng' } });
    const changes = userChanges(
      sentBefore((older as { entry: MemoryEntry }).entry),
      request({ LastName: 'Ng', Role: 'Invigilator' }),
    );
    expect(changes).toEqual([{ field: 'Role', known: false, after: 'Invigilator' }]);
    expect(userChanges(sentBefore(entry), request({ LastName: 'Ng', Role: 'Invigilator' }))).toEqual([
      { field: 'Role', known: true, before: 'Candidate', after: 'Invigilator' },
    ]);
    expect(entryOfBody({ id: 'u-1', d: 'd', r: 'r', v: ['Role'] })).toBe('its sent fields are not fields by name');
  });

  it('memberships: a remote plan knows the links examctl sent, link by link; another link is not known', () => {
    const entry: MemoryEntry = {
      digest: 'd',
      run: 'r',
      links: [
        ['H-A', ['coordinator']],
        ['H-B', []],
      ],
    };
    const flags = { IsCoordinator: true, IsAdministrator: true, HasViewReportsPermissions: false };
    expect(userChanges(sentBefore(entry), request({ Hierarchies: [{ ExternalId: 'H-A', ...flags }] }))).toEqual([
      { field: 'Hierarchies', known: true, before: 'H-A:coordinator', after: 'H-A:coordinator+administrator' },
    ]);
    // A DELETE of a link examctl sent; a link it never sent (the platform may hold it): not known.
    const deleted = request({ Hierarchies: [{ ExternalId: 'H-B', Action: 'DELETE' }] });
    expect(userChanges(sentBefore(entry), deleted)).toEqual([{ field: 'Hierarchies', known: true, before: 'H-B' }]);
    const other = request({ Hierarchies: [{ ExternalId: 'H-C', IsCoordinator: false }] });
    expect(userChanges(sentBefore(entry), other)).toEqual([{ field: 'Hierarchies', known: false, after: 'H-C' }]);
    // The links as they were: nothing listed.
    const same = request({ Hierarchies: [{ ExternalId: 'H-A', IsCoordinator: true }, { ExternalId: 'H-B' }] });
    expect(userChanges(sentBefore(entry), same)).toEqual([]);
  });
});
