import { describe, expect, it } from 'vitest';
import { actionOf } from '../../src/report/plan-actions.js';
import { RunPlan, RunReportBuilder } from '../../src/report/report-writers.js';
import type { ItemAction, ReportItem } from '../../src/report/run-report.js';

const item = (id: string, action: ItemAction | undefined, extra: Partial<ReportItem> = {}): ReportItem => ({
  source: { file: 'users.csv', line: 2 },
  id,
  status: 'ok',
  errors: [],
  action,
  ...extra,
});

/** The plan's lines for `items`, beside their counts as a dry run's summary has them (RunReportBuilder). */
function planLines(items: readonly ReportItem[], planned = false): string[] {
  const plan = new RunPlan(planned);
  const builder = new RunReportBuilder([{ item: ({ item }) => plan.add(item), finish: () => undefined }], true);
  for (const item of items) void builder.add({ item });
  return plan.lines(builder.summary.actions ?? {});
}

describe("a dry run's plan on stderr", () => {
  it('shows up to 10 records of each kind, leavers first, and counts the rest of each', () => {
    const lines = planLines([
      ...Array.from({ length: 30 }, (_, i) => item(`same-${i}`, 'unchanged')),
      ...Array.from({ length: 15 }, (_, i) => item(`new-${i}`, 'created')),
      ...Array.from({ length: 12 }, (_, i) => item(`upd-${i}`, 'updated', { changedFields: ['LastName'] })),
      item('mover-1', 'updated', { removed: ['H-A'], joined: ['H-B'] }),
      ...Array.from({ length: 3 }, (_, i) => item(`gone-${i}`, 'disabled')),
    ]);
    // One count per action: the mover is a prune, not an update too (plan-actions.ts).
    expect(lines[0]).toBe('plan: 15 to create, 12 to update, 3 to disable, 1 to prune (movers), 30 unchanged');
    expect(lines.slice(1, 4)).toEqual([
      '  - gone-0 (disable login)',
      '  - gone-1 (disable login)',
      '  - gone-2 (disable login)',
    ]);
    expect(lines.filter((line) => line.startsWith('  + '))).toHaveLength(10);
    expect(lines.filter((line) => line.startsWith('  ~ upd-'))).toHaveLength(10);
    expect(lines.filter((line) => line.startsWith('  = '))).toHaveLength(10);
    expect(lines).toContain('  ~ mover-1 (leaves H-A; joins H-B)');
    expect(lines.filter((line) => line.startsWith('  ... '))).toEqual([
      '  ... and 5 more to create',
      '  ... and 2 more to update',
      '  ... and 20 more unchanged',
    ]);
    // Each kind's overflow right after its own lines.
    expect(lines.indexOf('  ... and 5 more to create')).toBe(lines.indexOf('  + new-9') + 1);
  });

  it('a record a restore makes go again says why on its line, whatever it does (docs/sync.md, "The plan")', () => {
    const why = 'sent again: run r-2 acknowledged it, and the store was restored to before that';
    const lines = planLines([
      item('gone-1', 'disabled', { note: why }),
      item('mover-1', 'updated', { removed: ['H-A'], joined: ['H-B'], note: why }),
      item('new-1', 'created', { note: why }),
      item('upd-1', 'updated', { changedFields: ['LastName'], note: why }),
    ]);
    expect(lines.slice(1)).toEqual([
      `  - gone-1 (disable login): ${why}`,
      `  ~ mover-1 (leaves H-A; joins H-B): ${why}`,
      `  + new-1: ${why}`,
      `  ~ upd-1 (LastName): ${why}`,
    ]);
  });

  it('names a record the target would refuse as refused, as its count does, apart from an invalid one', () => {
    // Planned: a local store judged them (an item with an action marks that on its own).
    const lines = planLines(
      [
        item('bio27', undefined, { status: 'failed', plan: 'fails' }),
        item('Bad Id!', undefined, { status: 'failed', plan: 'invalid' }),
      ],
      true,
    );
    expect(lines).toEqual([
      'plan: 1 refused by the target, 1 invalid',
      '  ! bio27 (refused by the target)',
      '  ! Bad Id! (invalid)',
    ]);
  });

  it('counts an id invigilators remove found already gone (--missing-ok) as unchanged, as its item says, not removed', () => {
    const removal = { valid: true, removes: true };
    expect(actionOf(removal, { status: 'ok', action: 'unchanged' })).toBe('unchanged');
    expect(actionOf(removal, { status: 'ok', action: 'removed' })).toBe('remove');
    // A remote dry run tells nothing: the request removes.
    expect(actionOf(removal, { status: 'ok' })).toBe('remove');
  });
});
