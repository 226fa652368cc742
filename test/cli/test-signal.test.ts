import { describe, expect, it } from 'vitest';
import { testSignalFrom } from '../../src/pipeline/run-journaling.js';
import { UsageError } from '../../src/system/errors.js';

describe('EXAMCTL_TEST_SIGNAL_AFTER', () => {
  it('signals once, at the Nth event of its kind, counting batches of sent units', () => {
    const sent: NodeJS.Signals[] = [];
    const hook = testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: 'sent:5:SIGTERM' }, (signal) => sent.push(signal));
    hook.counted('outcome', 10);
    expect(sent).toEqual([]);
    hook.counted('sent', 4);
    expect(sent).toEqual([]);
    hook.counted('sent', 3);
    hook.counted('sent', 3);
    expect(sent).toEqual(['SIGTERM']);
  });

  it('does nothing when unset or empty', () => {
    for (const env of [{}, { EXAMCTL_TEST_SIGNAL_AFTER: '' }]) {
      const sent: NodeJS.Signals[] = [];
      testSignalFrom(env, (signal) => sent.push(signal)).counted('outcome', 1e6);
      expect(sent).toEqual([]);
    }
  });

  it.each(['outcome:0:SIGKILL', 'outcome:5', 'later:5:SIGKILL', 'outcome:5:SIGUSR1', 'outcome:-1:SIGINT'])('refuses %s as a usage error naming the variable', (value) => {
    expect(() => testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: value })).toThrow(UsageError);
    expect(() => testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: value })).toThrow(/EXAMCTL_TEST_SIGNAL_AFTER/);
  });
});
