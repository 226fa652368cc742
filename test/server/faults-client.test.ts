import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctl, resumeUntilDone, serveWithFaults } from '../support/faulty-serve.js';

type Item = { id: string | null; status: string };

/*
 * A schedule push without Upsert through lost answers: the first attempt creates the schedule and
 * the client never hears; its retry meets "Duplicate ScheduleExtId". That is the schedule the run
 * asked for, so the item is ok with the note "possibly created by the lost first attempt" (as a
 * collection's 810 is), not failed. Needs the remote client's handling of that answer.
 */
describe('examctl schedule push (Upsert false) through local serve --faults lost', () => {
  it('ends ok for every schedule, noting the ones a lost answer created', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-faults-push-'));
    const log: string[] = [];
    const server = await serveWithFaults(dir, 'lost:35%', 5, log);
    try {
      const requests = Array.from({ length: 12 }, (_, i) => ({
        Schedule: {
          ScheduleExtId: `S-LOST-${i}`,
          AssessmentExtId: 'A-MATH-1',
          StartDateTime: '2027-01-12T09:00:00Z',
          GroupExtId: 'H-NORTH',
          GroupName: 'North campus',
        },
        Candidates: [{ CandidateExtId: `c-lost-${i}`, FirstName: 'Ann', LastName: 'Lee', Email: `c${i}@example.test` }],
      }));
      await writeFile(join(dir, 'schedules.json'), JSON.stringify(requests));
      const env = { EXAMCTL_TOKEN: 'dev-token' };
      // Five lost answers in a row for one schedule (0.35^5 per schedule) end the run with exit 3
      // and that schedule not done; `runs resume` finishes it, as a CI job would.
      const first = await examctl(
        dir,
        [
          '--target',
          'remote',
          '--base-url',
          server.url,
          '--yes',
          '--no-input',
          '--json',
          'schedule',
          'push',
          '--file',
          join(dir, 'schedules.json'),
        ],
        env,
      );
      const run = await resumeUntilDone(dir, first, env);
      expect(log.some((line) => line.includes('fault=lost'))).toBe(true);
      const items = (
        JSON.parse((await examctl(dir, ['--json', 'runs', 'show', 'last'], env)).stdout) as { items: Item[] }
      ).items;
      expect(items).toHaveLength(12);
      expect(
        items.filter((item) => item.status !== 'ok'),
        run.stdout,
      ).toEqual([]);
      expect(items.some((item) => JSON.stringify(item).includes('possibly created by the lost first attempt'))).toBe(
        true,
      );
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
