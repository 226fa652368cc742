import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localStoreDirs } from '../support/local-store-dir.js';
import { examctl } from '../durability/helpers.js';

/**
 * Leading zeros across commands (docs/input-formats.md, "Leading zeros"): a schedule push makes
 * its candidates' users, so a user sync whose id is one of those candidates without its zeros
 * (Excel read the column as numbers) would make a second user of the same person. Refused like
 * an id the user memory holds with zeros, unless --really-new-ids.
 */

const place = localStoreDirs('scheduled-zeros');

describe('a user sync after a schedule push', () => {
  it('an id that is a pushed candidate without its leading zeros is refused, nothing sent; --really-new-ids sends it', async () => {
    writeFileSync(
      join(place.dir, 'sittings.csv'),
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n' +
        'S-Z1,A-MATH-1,Maths,2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North,004512,Ann,Lee,ann.lee@example.test\n',
    );
    const pushed = await examctl(['schedule', 'push', '--file', 'sittings.csv', '--target', 'local', '--store', 'store', '--yes'], place.dir, place.env);
    expect(pushed.code, pushed.stderr).toBe(0);
    writeFileSync(join(place.dir, 'users.csv'), 'ExternalId,FirstName,LastName,Email,Role\n4512,Ann,Lee,ann.lee@example.test,Candidate\n');
    const sync = (...flags: string[]) => examctl(['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--yes', ...flags], place.dir, place.env);
    const refused = await sync();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the file gives 1 new id that examctl synced to local ');
    expect(refused.stderr).toContain('(users.csv:2 4512 for 004512)');
    const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
    expect((JSON.parse(exported.stdout) as { Users: { ExternalId: string }[] }).Users.some((user) => user.ExternalId === '4512')).toBe(false);
    expect((await sync('--really-new-ids')).code).toBe(0);
  });
});
