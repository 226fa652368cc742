import { describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testSignalFrom } from '../../src/pipeline/run-journaling.js';
import { UsageError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from './helpers.js';

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

  it('several markers, comma-separated: each signals once at its own point', () => {
    const sent: NodeJS.Signals[] = [];
    const hook = testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:2:SIGSTOP,outcome:4:SIGKILL' }, (signal) =>
      sent.push(signal),
    );
    hook.counted('outcome');
    expect(sent).toEqual([]);
    hook.counted('outcome');
    expect(sent).toEqual(['SIGSTOP']);
    hook.counted('outcome', 5);
    expect(sent).toEqual(['SIGSTOP', 'SIGKILL']);
  });

  it('does nothing when unset or empty', () => {
    for (const env of [{}, { EXAMCTL_TEST_SIGNAL_AFTER: '' }]) {
      const sent: NodeJS.Signals[] = [];
      testSignalFrom(env, (signal) => sent.push(signal)).counted('outcome', 1e6);
      expect(sent).toEqual([]);
    }
  });

  it.each([
    'outcome:0:SIGKILL',
    'outcome:5',
    'later:5:SIGKILL',
    'outcome:5:SIGUSR1',
    'outcome:-1:SIGINT',
    'outcome:5:SIGKILL,',
    'outcome:5:SIGKILL,sent:0:SIGINT',
  ])('refuses %s as a usage error naming the variable', (value) => {
    expect(() => testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: value })).toThrow(UsageError);
    expect(() => testSignalFrom({ EXAMCTL_TEST_SIGNAL_AFTER: value })).toThrow(/EXAMCTL_TEST_SIGNAL_AFTER/);
  });

  it('a run with it set says so first (one left in a job would kill every run unnamed)', () =>
    withTempDir(async (dir) => {
      const io = testDeps(
        dir,
        {},
        { EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:999999:SIGTERM', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const users = resolve(__dirname, '../../fixtures/users.csv');
      expect(await runCli(['--store', join(dir, 'store'), 'user', 'sync', '--file', users], io.deps)).toBe(0);
      expect(io.stderr.text).toContain(
        'examctl: EXAMCTL_TEST_SIGNAL_AFTER=outcome:999999:SIGTERM is set: this run signals itself',
      );
    }));
});
