import { describe, expect, it } from 'vitest';
import { guarded } from '../../src/pipeline/plan-tap.js';
import { planDigest, type PlanGuard } from '../../src/runs/plan-document.js';
import type { Unit } from '../../src/pipeline/record-job.js';

// `examctl apply` (docs/plan.md, "Apply"): a unit that is not the plan's request at its position fails unsent, 9024.
const unit = (id: string): Unit<{ ExternalId: string }> => ({
  source: { file: 'users.csv', line: 2 },
  id,
  prepared: { ok: true, value: { ExternalId: id } },
});

describe('apply: each unit against the plan', () => {
  it("the planned request goes; another at its place, or one past the plan, fails with 9024 naming the item by its n (0-based, as the plan file and E2600's message number it)", async () => {
    const guard: PlanGuard = {
      path: 'p.json',
      plan: '0123456789abcdef',
      itemAt: (n) => (n === 0 ? ({ digest: planDigest({ ExternalId: 'u-1' }) } as never) : undefined),
    };
    const batches = (async function* () {
      yield [unit('u-1'), unit('u-2')];
    })();
    const out: Unit<{ ExternalId: string }>[] = [];
    for await (const batch of guarded(batches, guard)) out.push(...batch);
    expect(out[0]!.prepared.ok).toBe(true);
    expect(out[1]!.prepared).toMatchObject({ ok: false, problems: [{ field: '', code: 9024 }] });
    expect(out[1]!.prepared.ok ? '' : out[1]!.prepared.problems[0]!.message).toMatch(
      /p\.json .*item 1 \(the plan's "n"\)/,
    );
  });

  it("a resumed apply's resend after a lost answer may add DisableLogin false (user-sync-memory.ts, enables); nothing else", async () => {
    const request = { ExternalId: 'u-1', LastName: 'Lee' };
    const item = { digest: planDigest(request), request } as never;
    const sent = (value: Record<string, unknown>, resumed: boolean) =>
      (async () => {
        const guard: PlanGuard = { path: 'p.json', plan: '0123456789abcdef', resumed, itemAt: () => item };
        const batches = (async function* () {
          yield [{ ...unit('u-1'), prepared: { ok: true as const, value } }];
        })();
        for await (const [out] of guarded(batches, guard)) return out!.prepared.ok;
      })();
    expect(await sent({ ...request, DisableLogin: false }, true)).toBe(true);
    expect(await sent({ ...request, DisableLogin: false }, false)).toBe(false);
    expect(await sent({ ...request, DisableLogin: true }, true)).toBe(false);
    expect(await sent({ ...request, LastName: 'Other', DisableLogin: false }, true)).toBe(false);
  });
});
