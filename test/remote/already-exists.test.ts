import { describe, expect, it } from 'vitest';
import { saysAlreadyExists } from '../../src/api/already-exists.js';

const failed = (...errors: Array<{ Code: number | null; Message: string }>) => ({
  Content: null,
  Success: false,
  Errors: errors,
});

describe('"already exists" by endpoint and code', () => {
  it('810 on POST /collections', () => {
    expect(saysAlreadyExists('/collections', {}, failed({ Code: 810, Message: 'ExternalId already used.' }))).toBe(
      true,
    );
    expect(saysAlreadyExists('/collections', {}, failed({ Code: 804, Message: 'Title null or empty.' }))).toBe(false);
  });

  it('Duplicate ScheduleExtId (Code null) on POST /schedule with Upsert false or absent, never with Upsert true', () => {
    const duplicate = failed({ Code: null, Message: 'Duplicate  ScheduleExtId: S-1 already exists' });
    expect(saysAlreadyExists('/schedule', { Upsert: false }, duplicate)).toBe(true);
    expect(saysAlreadyExists('/schedule', {}, duplicate)).toBe(true);
    expect(saysAlreadyExists('/schedule', { Upsert: true }, duplicate)).toBe(false);
  });

  it('not another Code-null schedule condition, nor the same words under a code, nor on another endpoint', () => {
    expect(saysAlreadyExists('/schedule', {}, failed({ Code: null, Message: 'Hierarchy not found: H-1' }))).toBe(false);
    expect(saysAlreadyExists('/schedule', {}, failed({ Code: 249, Message: 'Duplicate ScheduleExtId' }))).toBe(false);
    expect(saysAlreadyExists('/user', {}, failed({ Code: 810, Message: 'ExternalId already used.' }))).toBe(false);
  });

  it('not when another problem stands beside it (the request itself was refused), nor on success', () => {
    expect(
      saysAlreadyExists(
        '/collections',
        {},
        failed({ Code: 810, Message: 'ExternalId already used.' }, { Code: 805, Message: 'Title too long' }),
      ),
    ).toBe(false);
    expect(
      saysAlreadyExists('/collections', {}, { Content: null, Success: true, Errors: [{ Code: 810, Message: 'x' }] }),
    ).toBe(false);
  });

  it.each([
    'Bad request: duplicate ScheduleExtId S-1',
    'DUPLICATE SCHEDULEEXTID',
    'ScheduleExtId S-1: duplicate',
    'error: Duplicate scheduleExtId "S-1" (already exists)',
  ])("recognises the condition's words anywhere, in any case: %s", (message) => {
    expect(saysAlreadyExists('/schedule', { Upsert: false }, failed({ Code: null, Message: message }))).toBe(true);
  });

  it('not when the words are only part of other words, nor beside another error', () => {
    expect(saysAlreadyExists('/schedule', {}, failed({ Code: null, Message: 'nonduplicate ScheduleExtIds' }))).toBe(
      false,
    );
    expect(
      saysAlreadyExists(
        '/schedule',
        {},
        failed(
          { Code: null, Message: 'Bad request: duplicate ScheduleExtId S-1' },
          { Code: null, Message: 'Hierarchy not found: H-1' },
        ),
      ),
    ).toBe(false);
  });
});
