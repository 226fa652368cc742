import { describe, expect, it } from 'vitest';
import { boundAfterSignal } from '../../src/cli/interrupt-signals.js';

/** A fake clock: the timer armed, run when the test says its time has come (trial23 f12, f13). */
function armed(env: Record<string, string | undefined>): { ms: number; unref: boolean; fire: () => string[] } {
  const said: string[] = [];
  let run: () => void = () => undefined;
  const seen = { ms: -1, unref: false };
  boundAfterSignal(env, (fn, ms) => ((run = fn), (seen.ms = ms), { unref: () => (seen.unref = true) }), (why) => said.push(why));
  return { ...seen, fire: () => (run(), said) };
}

describe('the bound on a run after its first signal (a report pipe nobody reads, a big input read)', () => {
  it('quits after the requests grace and 10 s for the reports, saying why and what of the report', () => {
    const timer = armed({});
    expect(timer.ms).toBe(20_000);
    expect(timer.unref).toBe(true);
    const [why] = timer.fire();
    expect(why).toContain('did not end within 20 s of the interrupt');
    expect(why).toContain('a report not finished is not kept ("examctl runs show <id> --report" writes it again)');
  });

  it('follows EXAMCTL_STOP_GRACE_MS; one it cannot read is the default, as the run refuses it', () => {
    expect(armed({ EXAMCTL_STOP_GRACE_MS: '0' }).ms).toBe(10_000);
    expect(armed({ EXAMCTL_STOP_GRACE_MS: ' 2500 ' }).ms).toBe(12_500);
    expect(armed({ EXAMCTL_STOP_GRACE_MS: 'soon' }).ms).toBe(20_000);
  });
});
