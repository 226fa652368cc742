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
