import { describe, it, expect } from 'vitest';
import { clockFromEnv } from '../../src/engine/clock.js';
import { UsageError } from '../../src/system/errors.js';

describe('clockFromEnv', () => {
  it('pins the clock to EXAMCTL_NOW (RFC 3339 with Z or an offset)', () => {
    expect(clockFromEnv({ EXAMCTL_NOW: '2026-11-21T12:00:00Z' })().toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(clockFromEnv({ EXAMCTL_NOW: '2026-11-21T13:30:00.250+01:30' })().toISOString()).toBe(
      '2026-11-21T12:00:00.250Z',
    );
  });

  it('without EXAMCTL_NOW follows the system clock', () => {
    const clock = clockFromEnv({});
    const before = Date.now();
    const value = clock().getTime();
    expect(value).toBeGreaterThanOrEqual(before);
  });

  for (const bad of ['2026-11-21T12:00:00', 'tomorrow', '2026-13-01T00:00:00Z', '1700000000']) {
    it(`refuses ${bad} with a usage error (exit 2)`, () => {
      expect(() => clockFromEnv({ EXAMCTL_NOW: bad })).toThrow(UsageError);
    });
  }
});
