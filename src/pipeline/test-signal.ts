/**
 * `EXAMCTL_TEST_SIGNAL_AFTER=<sent|outcome>:<N>:<SIGNAL>` (docs/runs.md, "Rehearsing a crash"):
 * the run sends itself SIGNAL at a point it reaches. Unset, it costs one environment lookup per run.
 */
import { UsageError } from '../system/errors.js';

type TestSignalEvent = 'sent' | 'outcome';

export interface TestSignal {
  /** Counts `count` events of `event`; the signal goes at the one that reaches N. */
  counted(event: TestSignalEvent, count?: number): void;
}

const NO_SIGNAL: TestSignal = { counted() {} };
const VARIABLE = 'EXAMCTL_TEST_SIGNAL_AFTER';
const SIGNALS: readonly NodeJS.Signals[] = ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGSTOP'];

export function testSignalFrom(env: Readonly<Record<string, string | undefined>>, signalSelf: (signal: NodeJS.Signals) => void = (signal) => process.kill(process.pid, signal)): TestSignal {
  const value = env[VARIABLE];
  if (value === undefined || value === '') return NO_SIGNAL;
  const match = /^(sent|outcome):([1-9]\d{0,8}):(SIG[A-Z]+)$/.exec(value);
  const signal = match?.[3] as NodeJS.Signals | undefined;
  if (match === null || signal === undefined || !SIGNALS.includes(signal)) {
    throw new UsageError(`${VARIABLE}: "${value}": expected <sent|outcome>:<N>:<${SIGNALS.join('|')}>, e.g. outcome:100:SIGKILL`);
  }
  const event = match[1] as TestSignalEvent;
  const after = Number(match[2]);
  let seen = 0;
  let sentAlready = false;
  return {
    counted(counted, count = 1) {
      if (counted !== event || sentAlready) return;
      seen += count;
      if (seen < after) return;
      sentAlready = true;
      signalSelf(signal);
    },
  };
}
