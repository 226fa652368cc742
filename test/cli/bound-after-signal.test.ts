import { describe, expect, it } from 'vitest';
import { endBound } from '../../src/cli/interrupt-signals.js';

// trial23 f12, f13: a report pipe nobody reads or a big input's read ends within this after a signal.
describe('the bound on a run after its first signal', () => {
  it("is the requests' grace and 10 s for the reports; what it says names the report's fate", () => {
    expect(endBound()).toEqual({
      ms: 20_000,
      why: 'examctl: not ended 20 s after the interrupt: quitting; a report not finished is not kept\n',
    });
  });

  it('follows EXAMCTL_STOP_GRACE_MS; one it cannot read is the default, as the run refuses it', () => {
    expect(endBound('0').ms).toBe(10_000);
    expect(endBound(' 2500 ').ms).toBe(12_500);
    expect(endBound('soon').ms).toBe(20_000);
  });
});
