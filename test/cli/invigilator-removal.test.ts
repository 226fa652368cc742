import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/domain/codes.js';
import { RemovalCall } from '../../src/pipeline/invigilator-removal.js';
import type { Outcome } from '../../src/pipeline/record-job.js';

const notAnInvigilator: Outcome = {
  status: 'failed',
  errors: [{ field: 'UserExtId', code: ErrorCode.NotAnInvigilator, message: 'x' }],
};
const unchanged: Outcome = { status: 'ok', errors: [], action: 'unchanged' };
const removed: Outcome = { status: 'ok', errors: [], action: 'removed' };

describe('RemovalCall: what a removal remembers and what a lost attempt did (pipeline/invigilator-removal.ts)', () => {
  it('a resend answered 319 was removed by the lost attempt; an unchanged ok is so only with --missing-ok', () => {
    const strict = new RemovalCall('S-1', false);
    const lenient = new RemovalCall('S-1', true);
    expect(strict.lostAttemptDid(notAnInvigilator)).toBe('removed');
    expect(strict.lostAttemptDid(unchanged)).toBeUndefined();
    expect(lenient.lostAttemptDid(unchanged)).toBe('removed');
    expect(lenient.lostAttemptDid(removed)).toBeUndefined();
  });

  it('remembers removed, absent (319 or unchanged) and unknown (resent), never another failure', () => {
    const call = new RemovalCall('S-1', false);
    expect(call.remember(undefined, 'a', removed)).toEqual({ id: 'a', was: 'removed' });
    expect(call.remember(undefined, 'b', unchanged)).toEqual({ id: 'b', was: 'absent' });
    expect(call.remember(undefined, 'c', notAnInvigilator)).toEqual({ id: 'c', was: 'absent' });
    expect(call.remember(undefined, 'd', { ...removed, action: 'sent' })).toEqual({ id: 'd', was: 'unknown' });
    expect(
      call.remember(undefined, 'e', {
        status: 'failed',
        errors: [{ field: '', code: ErrorCode.FailedWithoutErrors, message: 'x' }],
      }),
    ).toBeUndefined();
  });
});
