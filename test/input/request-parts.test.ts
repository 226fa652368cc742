// A whole schedule request (JSON with Schedule and Candidates) is checked and shaped part by part:
// its Schedule against the schedule's fields, each candidate against a candidate's.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_COLUMNS, SCHEDULE_COLUMNS } from '../../src/domain/columns.js';
import { recordShaping } from '../../src/input/field-map.js';
import { readRecords } from '../../src/input/format.js';
import { collect } from './helpers.js';

const COLUMNS = [...SCHEDULE_COLUMNS, ...CANDIDATE_COLUMNS];

describe('a whole schedule request, part by part', () => {
  it('names an unknown key with its part, maps keys and fills --set values in the part they belong to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-request-'));
    try {
      const path = join(dir, 'request.json');
      const request = {
        Schedule: { ScheduleExtId: 'S-1', Bogus: 1 },
        Candidates: [
          { CandidateExtId: 'c-1', 'Given name': 'Ann' },
          { CandidateExtId: 'c-2', Nope: 2 },
        ],
        Workflow: 'x',
      };
      await writeFile(path, JSON.stringify([request]));
      const shaping = recordShaping(
        {
          map: [{ source: 'Given name', field: 'FirstName', origin: '--map', level: 2 }],
          set: [{ field: 'LastName', value: 'Smith', origin: '--set', level: 2 }],
        },
        COLUMNS,
        'schedule push',
      );
      const [record] = await collect(readRecords(path, { columns: COLUMNS, shaping }));
      expect(record?.problems?.map((problem) => problem.field)).toEqual(['Schedule.Bogus', 'Candidates[1].Nope']);
      expect(record?.fields).toEqual({
        Schedule: { ScheduleExtId: 'S-1' },
        Candidates: [
          { CandidateExtId: 'c-1', FirstName: 'Ann', LastName: 'Smith' },
          { CandidateExtId: 'c-2', LastName: 'Smith' },
        ],
        Workflow: 'x',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an unknown key of 200,000 characters (issue 81, item 8)', () => {
  it('is quoted cut to 60 characters with its length, in the field and the message, never whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-long-key-'));
    try {
      const path = join(dir, 'users.json');
      const key = 'K'.repeat(200_000);
      await writeFile(path, JSON.stringify([{ CandidateExtId: 'c-1', [key]: 'x' }]));
      const [record] = await collect(readRecords(path, { columns: COLUMNS }));
      const [problem] = record?.problems ?? [];
      const cut = `"${'K'.repeat(59)}…" (200,000 characters)`;
      expect(problem?.field).toBe(cut);
      expect(problem?.message).toContain(`unknown key: ${cut}`);
      expect(`${problem?.field} ${problem?.message}`.length).toBeLessThan(400);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
