import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import {
  okEnvelope,
  startFaultServer,
  type FaultServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../support/fault-server.js';

/**
 * A lost answer: the service did the work, then the connection dropped before the answer
 * reached the client, which retried. The retry meets "already exists" (810 for a collection,
 * "Duplicate ScheduleExtId" for a schedule pushed with Upsert false): the run reports the item
 * ok with a note, never failed, and sends it no third time.
 */

const TOKEN = 'lost-answer-token';

let server: FaultServer;
beforeEach(async () => {
  server = await startFaultServer();
});
afterEach(async () => {
  await server.close();
});

const duplicateSchedule: ScriptedReply = {
  status: 400,
  body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'Duplicate ScheduleExtId' }] },
};
const collectionTaken: ScriptedReply = {
  status: 400,
  body: { Content: null, Success: false, Errors: [{ Code: 810, Message: 'ExternalId already used.' }] },
};

/**
 * A service that creates what it is sent and, for the ids in `loseAnswerFor`, drops the
 * connection after creating it (once). What exists answers `exists`.
 */
function creatingService(
  idOf: (body: Record<string, unknown>) => string,
  loseAnswerFor: Set<string>,
  exists: ScriptedReply,
  created: (id: string) => ScriptedReply,
) {
  const existing = new Set<string>();
  return (request: RecordedRequest): ScriptedReply => {
    const id = idOf(JSON.parse(request.body) as Record<string, unknown>);
    if (existing.has(id)) return exists;
    existing.add(id);
    if (loseAnswerFor.delete(id)) return { destroy: true };
    return created(id);
  };
}

type Report = {
  summary: { total: number; ok: number; failed: number };
  items: Array<{ id: string; status: string; errors: Array<{ message: string }>; note?: string }>;
};

async function remoteRun(dir: string, args: string[]): Promise<{ code: number; report: Report; stderr: string }> {
  const reportFile = join(dir, 'report.json');
  const io = testDeps(dir, {}, { EXAMCTL_TOKEN: TOKEN });
  const code = await runCli(
    ['--target', 'remote', '--base-url', server.url, '--yes', '--report', reportFile, ...args],
    io.deps,
  );
  return { code, report: JSON.parse(await readFile(reportFile, 'utf8')) as Report, stderr: io.stderr.text };
}

const sentIds = (idOf: (body: Record<string, unknown>) => string): string[] =>
  server.requests.map((request) => idOf(JSON.parse(request.body) as Record<string, unknown>));

describe('a retried create whose first answer was lost', () => {
  it.each([
    ['Duplicate ScheduleExtId', duplicateSchedule],
    // A real server's own wording: the condition's words with other words around, another case.
    [
      'Bad request: duplicate ScheduleExtId S-LOST',
      {
        status: 400,
        body: {
          Content: null,
          Success: false,
          Errors: [{ Code: null, Message: 'Bad request: duplicate ScheduleExtId S-LOST' }],
        },
      },
    ],
  ] as Array<[string, ScriptedReply]>)(
    'schedule push with Upsert false: "%s" after the lost answer is ok with a note',
    async (_wording, duplicate) => {
      await withTempDir(async (dir) => {
        const scheduleId = (body: Record<string, unknown>) =>
          (body.Schedule as { ScheduleExtId: string }).ScheduleExtId;
        server.fallback = creatingService(scheduleId, new Set(['S-LOST']), duplicate, (id) => okEnvelope(id));
        const schedule = (id: string) => ({
          Workflow: 'DEFAULT',
          Upsert: false,
          Schedule: {
            ScheduleExtId: id,
            AssessmentExtId: 'A-1',
            Title: `Sitting ${id}`,
            StartDateTime: '2027-01-10T09:00:00Z',
            GroupExtId: 'H-1',
            GroupName: 'Group',
          },
          Candidates: [{ CandidateExtId: `cand-${id}`, FirstName: 'Ann', LastName: 'Lee', Email: 'ann@example.test' }],
        });
        const file = join(dir, 'schedules.json');
        await writeFile(file, JSON.stringify([schedule('S-OK'), schedule('S-LOST')]));

        const { code, report, stderr } = await remoteRun(dir, ['schedule', 'push', '--file', file]);

        expect(code, stderr).toBe(0);
        expect(report.summary).toMatchObject({ total: 2, ok: 2, failed: 0 });
        const lost = report.items.find((item) => item.id === 'S-LOST')!;
        expect(lost.status).toBe('ok');
        // Said beside the item (its note), not as an error of an ok item.
        expect(lost.errors).toEqual([]);
        expect(lost.note).toMatch(/possibly created by the lost first attempt/);
        expect(report.items.find((item) => item.id === 'S-OK')!.errors).toEqual([]);
        // Sent once, lost, retried once: never a third time.
        expect(sentIds(scheduleId).filter((id) => id === 'S-LOST')).toHaveLength(2);
      });
    },
  );

  it('a schedule that existed before the run (no lost answer) still fails as a duplicate', async () => {
    await withTempDir(async (dir) => {
      server.fallback = () => duplicateSchedule;
      const file = join(dir, 'schedules.json');
      await writeFile(
        file,
        JSON.stringify([
          {
            Workflow: 'DEFAULT',
            Upsert: false,
            Schedule: {
              ScheduleExtId: 'S-OLD',
              AssessmentExtId: 'A-1',
              Title: 'Old',
              StartDateTime: '2027-01-10T09:00:00Z',
              GroupExtId: 'H-1',
              GroupName: 'Group',
            },
            Candidates: [],
          },
        ]),
      );
      const { code, report } = await remoteRun(dir, ['schedule', 'push', '--file', file]);
      expect(code).toBe(1);
      expect(server.requests).toHaveLength(1);
      expect(report.items[0]!.status).toBe('failed');
      expect(report.items[0]!.errors.map((error) => error.message).join(' ')).not.toMatch(/lost/);
    });
  });

  it('collection add: 810 after the lost answer is ok with a note', async () => {
    await withTempDir(async (dir) => {
      const collectionId = (body: Record<string, unknown>) => body.ExternalId as string;
      server.fallback = creatingService(collectionId, new Set(['lost1']), collectionTaken, (id) =>
        okEnvelope({ ExternalId: id, Errors: null }),
      );
      const file = join(dir, 'collections.json');
      await writeFile(file, JSON.stringify([{ ExternalId: 'lost1', Title: 'Lost answer', Owner: 'planner' }]));

      const { code, report, stderr } = await remoteRun(dir, ['collection', 'add', '--file', file]);

      expect(code, stderr).toBe(0);
      expect(report.items[0]!.status).toBe('ok');
      expect(report.items[0]!.errors).toEqual([]);
      expect(report.items[0]!.note).toMatch(/possibly created by the lost first attempt/);
      expect(sentIds(collectionId)).toEqual(['lost1', 'lost1']);
    });
  });
});
