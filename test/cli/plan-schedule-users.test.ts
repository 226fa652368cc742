import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCliWithUsers, withTempDir } from './helpers.js';

const SITTINGS =
  'ScheduleExtId,AssessmentExtId,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n' +
  'S-1,A-MATH-1,2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North <December>,stu-2001,Amira <b>&amp;</b>,Haddad,amira.haddad@students.example.test\n' +
  'S-1,A-MATH-1,2026-12-14T09:00:00Z,2026-12-14T12:00:00Z,H-NORTH-DEC,North <December>,stu-9001,Nia,Okafor,nia@example.test\n';

interface PlanChange {
  field: string;
  known: boolean;
  before?: unknown;
  after?: unknown;
}

/**
 * A schedule push also writes its candidates' users (a name, an e-mail, the group's membership) and may create its
 * group: the plan and its page show each of those per user, before and after (docs/plan.md, "Before and after"),
 * so what apply sends to a user is what a person reviewed.
 */
describe("a schedule push's plan on the local store", () => {
  it("lists each candidate's user and the group it creates or changes, before and after, on the page too", () =>
    withTempDir(async (dir) => {
      const cli = await storeCliWithUsers(dir);
      await writeFile(join(dir, 'sittings.csv'), SITTINGS);
      const dry = await cli('schedule push --file sittings.csv --dry-run --plan-out p.json --report p.html'.split(' '));
      expect(dry.code, dry.stderr).toBe(0);
      const [item] = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')).items as { changes?: PlanChange[] }[];
      const changes = item!.changes ?? [];
      const of = (field: string) => changes.find((change) => change.field === field);
      expect(of('users stu-2001 FirstName')).toEqual({
        field: 'users stu-2001 FirstName',
        known: true,
        before: 'Amira',
        after: 'Amira <b>&amp;</b>',
      });
      expect(of('users stu-2001 Hierarchies')).toEqual({
        field: 'users stu-2001 Hierarchies',
        known: true,
        before: 'H-NORTH',
        after: 'H-NORTH|H-NORTH-DEC',
      });
      // A user it creates: each field from no value.
      expect(of('users stu-9001 LastName')).toEqual({ field: 'users stu-9001 LastName', known: true, after: 'Okafor' });
      expect(of('hierarchies H-NORTH-DEC Title')).toEqual({
        field: 'hierarchies H-NORTH-DEC Title',
        known: true,
        after: 'North <December>',
      });
      // A field the push leaves as it was is not listed, nor a created entity's id (its name says it).
      expect(of('hierarchies H-NORTH-DEC ExternalId')).toBeUndefined();
      expect(of('users stu-2001 LastName')).toBeUndefined();

      const page = await readFile(join(dir, 'p.html'), 'utf8');
      const island = /<script type="application\/json" id="examctl-rows">([^]*?)<\/script>/.exec(page)![1]!;
      const [row] = JSON.parse(island) as unknown[][];
      expect(row![3]).toContainEqual(['users stu-2001 FirstName', 'Amira']);
      expect(row![4]).toContainEqual(['users stu-2001 FirstName', 'Amira <b>&amp;</b>']);
      expect(row![4]).toContainEqual(['users stu-9001 LastName', 'Okafor']);
    }));

  it("an update's own fields stay on the page beside its candidates' users", () =>
    withTempDir(async (dir) => {
      const cli = await storeCliWithUsers(dir);
      await writeFile(join(dir, 'sittings.csv'), SITTINGS);
      expect((await cli(['schedule', 'push', '--file', 'sittings.csv'])).code).toBe(0);
      // The sitting moves a day, and stu-2002 joins it.
      const moved = `${SITTINGS.replaceAll('2026-12-14', '2026-12-15')}${SITTINGS.split('\n')[2]!.replace('stu-9001,Nia', 'stu-2002,Ben').replaceAll('2026-12-14', '2026-12-15')}\n`;
      await writeFile(join(dir, 'sittings.csv'), moved);
      const dry = await cli('schedule push --file sittings.csv --upsert --dry-run --report p.html'.split(' '));
      expect(dry.code, dry.stderr).toBe(0);
      const page = await readFile(join(dir, 'p.html'), 'utf8');
      const island = /<script type="application\/json" id="examctl-rows">([^]*?)<\/script>/.exec(page)![1]!;
      const [row] = JSON.parse(island) as unknown[][];
      expect(row![4]).toContainEqual(['users stu-2002 Hierarchies', 'H-SOUTH|H-NORTH-DEC']);
      // Its own fields before and after, its candidates by id; never a candidate's link.
      expect(row![3]).toContainEqual(['StartDateTime', '2026-12-14T09:00:00.000Z']);
      expect(row![4]).toContainEqual(['StartDateTime', '2026-12-15T09:00:00.000Z']);
      expect(row![3]).toContainEqual(['Candidates', 'stu-2001, stu-9001']);
      expect(row![4]).toContainEqual(['Candidates', 'stu-2001, stu-9001, stu-2002']);
      expect(island).not.toContain('StartupLink');
      const json = await cli('schedule push --file sittings.csv --upsert --dry-run --json'.split(' '));
      const [item] = JSON.parse(json.stdout).items as { changes?: PlanChange[] }[];
      expect(item!.changes?.find((change) => change.field === 'EndDateTime')).toEqual({
        field: 'EndDateTime',
        known: true,
        before: '2026-12-14T12:00:00.000Z',
        after: '2026-12-15T12:00:00.000Z',
      });
    }));
});
