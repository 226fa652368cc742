import { describe, expect, it } from 'vitest';
import {
  COLLECTION_ID_RULE,
  INVIGILATOR_ID_RULE,
  SCHEDULE_ID_RULE,
  USER_ID_RULE,
} from '../../src/domain/one-id-per-file.js';
import { ITEM_CODE_TEXT } from '../../src/domain/codes.js';
import { prepareScheduleRequest, scheduleIdOf } from '../../src/domain/sittings.js';
import { OneIdPerFile, unitPerRecord } from '../../src/pipeline/record-job.js';
import type { InputRecord } from '../../src/input/record.js';

// docs/interpretations.md, "One file, one id": one rule (pipeline/record-job.ts, OneIdPerFile) every
// command's input passes. The whole input is read first, so both records of an id fail, each
// naming the other's place; without that read (an adoption) only the later one does.

const record = (line: number, fields: Record<string, unknown>, file = 'in.csv'): InputRecord => ({
  source: { file, line },
  fields,
});

async function* each<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

async function problemsOf(
  ids: OneIdPerFile,
  records: readonly InputRecord[],
  readFirst = true,
): Promise<[number, string | undefined][]> {
  if (readFirst) await ids.read(each(records));
  ids.start();
  return records.map((r) => [r.source.line, ids.problemOf(r)?.message]);
}

describe('OneIdPerFile: an id given twice in one input fails both records', () => {
  it('user ids: both rows, each naming the other line; case ignored; a third names the first', async () => {
    const records = [
      record(2, { ExternalId: 'u-1' }),
      record(3, { ExternalId: 'u-2' }),
      record(4, { ExternalId: 'U-1' }),
      record(5, { ExternalId: 'u-1' }),
    ];
    expect(await problemsOf(new OneIdPerFile(USER_ID_RULE), records)).toEqual([
      [2, 'ExternalId u-1 is also on line 4; an id appears once in one file'],
      [3, undefined],
      [4, 'ExternalId U-1 is also on line 2 (as u-1); an id appears once in one file'],
      [5, 'ExternalId u-1 is also on line 2; an id appears once in one file'],
    ]);
  });

  it('`examctl explain 9009` says what the run does: both records fail, user ids compared ignoring case only', () => {
    const { cause } = ITEM_CODE_TEXT.IdRepeatedInFile;
    expect(cause).toMatch(/both (rows|records) fail/);
    expect(cause).not.toMatch(/the later row fails/);
    expect(cause).toMatch(/collection and schedule ids exactly/);
  });

  it('without the read before (an adoption), the later record fails alone, as before', async () => {
    const records = [record(2, { ExternalId: 'phys1' }), record(3, { ExternalId: 'phys1' })];
    expect(await problemsOf(new OneIdPerFile(COLLECTION_ID_RULE), records, false)).toEqual([
      [2, undefined],
      [3, 'ExternalId phys1 is also on line 2; an id appears once in one file'],
    ]);
  });

  it('collection ids keep their case; a file without repeats gets no problem', async () => {
    const records = [record(1, { ExternalId: 'PHYS1' }), record(2, { ExternalId: 'phys1' })];
    expect(await problemsOf(new OneIdPerFile(COLLECTION_ID_RULE), records)).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
  });

  it('invigilator ids across arguments and --file: each names the other place with its file', async () => {
    const records = [record(1, { UserExtId: 'inv-1' }, '<arguments>'), record(1, { UserExtId: 'INV-1' }, 'ids.txt')];
    expect(await problemsOf(new OneIdPerFile(INVIGILATOR_ID_RULE), records)).toEqual([
      [1, 'UserExtId inv-1 is also on ids.txt line 1; an id appears once in one file'],
      [1, 'UserExtId INV-1 is also on <arguments> line 1 (as inv-1); an id appears once in one file'],
    ]);
  });

  it('schedule requests: the ScheduleExtId a request or the defaults give, on Schedule.ScheduleExtId; both requests fail', async () => {
    const defaults = { schedule: { ScheduleExtId: 'S-DEFAULT' } };
    const ids = new OneIdPerFile(SCHEDULE_ID_RULE, (r) => scheduleIdOf(r.fields, defaults));
    const records = [
      record(2, { Schedule: { ScheduleExtId: 'S-J1' } }),
      record(3, { Schedule: {} }),
      record(14, { Schedule: { ScheduleExtId: 'S-J1' } }),
      record(15, { Schedule: {} }),
    ];
    await ids.read(each(records));
    ids.start();
    const problems = records.map((r) => ids.problemOf(r));
    expect(problems.map((p) => p?.field)).toEqual([
      'Schedule.ScheduleExtId',
      'Schedule.ScheduleExtId',
      'Schedule.ScheduleExtId',
      'Schedule.ScheduleExtId',
    ]);
    expect(problems.map((p) => p?.message)).toEqual([
      'ScheduleExtId S-J1 is also on line 14; an id appears once in one file',
      'ScheduleExtId S-DEFAULT is also on line 15; an id appears once in one file',
      'ScheduleExtId S-J1 is also on line 2; an id appears once in one file',
      'ScheduleExtId S-DEFAULT is also on line 3; an id appears once in one file',
    ]);
    expect(problems.map((p) => p?.code)).toEqual([9009, 9009, 9009, 9009]);
    // The request itself names its id and is valid on its own: the rule, not prepareScheduleRequest, fails it.
    const request = prepareScheduleRequest(
      {
        Schedule: { AssessmentExtId: 'A-1', StartDateTime: '2026-12-01T09:00:00Z', GroupExtId: 'G-1', GroupName: 'G' },
        Candidates: [],
      },
      3,
      defaults,
    );
    expect(request.id).toBe('S-DEFAULT');
  });

  it('unitPerRecord with an id rule gives readIds, and its units carry the problem on the earlier record too', async () => {
    const job = unitPerRecord(
      (r) => ({ source: r.source, id: String(r.fields.ExternalId), prepared: { ok: true as const, value: r.fields } }),
      USER_ID_RULE,
    );
    const records = [record(2, { ExternalId: 'a' }), record(3, { ExternalId: 'b' }), record(4, { ExternalId: 'A' })];
    await job.readIds!(each(records));
    const units = [];
    for await (const batch of job.units(each([records]))) units.push(...batch);
    expect(units.map((u) => u.prepared.ok)).toEqual([false, true, false]);
    expect(
      unitPerRecord((r) => ({ source: r.source, id: null, prepared: { ok: true as const, value: r } })).readIds,
    ).toBeUndefined();
  });
});
