import { describe, expect, it } from 'vitest';
import { actionOf } from '../../src/report/plan-actions.js';
import { RunPlan } from '../../src/report/report-writers.js';
import type { ItemAction, ReportItem } from '../../src/report/run-report.js';

const item = (id: string, action: ItemAction | undefined, extra: Partial<ReportItem> = {}): ReportItem => ({
  source: { file: 'users.csv', line: 2 },
  id,
  status: 'ok',
  errors: [],
  action,
  ...extra,
});

describe("a dry run's plan on stderr", () => {
  it('shows up to 10 records of each kind, leavers first, and counts the rest of each', () => {
    const plan = new RunPlan();
    for (let i = 0; i < 30; i++) plan.add(item(`same-${i}`, 'unchanged'));
    for (let i = 0; i < 15; i++) plan.add(item(`new-${i}`, 'created'));
    for (let i = 0; i < 12; i++) plan.add(item(`upd-${i}`, 'updated', { changedFields: ['LastName'] }));
    plan.add(item('mover-1', 'updated', { removed: ['H-A'], joined: ['H-B'] }));
    for (let i = 0; i < 3; i++) plan.add(item(`gone-${i}`, 'disabled'));
    const lines = plan.lines();
    // One count per action: the mover is a prune, not an update too (plan-actions.ts).
    expect(lines[0]).toBe('plan: 15 to create, 12 to update, 3 to disable, 1 to prune (movers), 30 unchanged');
    expect(plan.actions).toEqual({ create: 15, update: 12, disable: 3, prune: 1, unchanged: 30 });
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
    const plan = new RunPlan();
    plan.add(item('gone-1', 'disabled', { note: why }));
    plan.add(item('mover-1', 'updated', { removed: ['H-A'], joined: ['H-B'], note: why }));
    plan.add(item('new-1', 'created', { note: why }));
    plan.add(item('upd-1', 'updated', { changedFields: ['LastName'], note: why }));
    expect(plan.lines().slice(1)).toEqual([
      `  - gone-1 (disable login): ${why}`,
      `  ~ mover-1 (leaves H-A; joins H-B): ${why}`,
      `  + new-1: ${why}`,
      `  ~ upd-1 (LastName): ${why}`,
    ]);
  });

  it('names a record the target would refuse as refused, as its count does, apart from an invalid one', () => {
    // Planned: a local store judged them (an item with an action marks that on its own).
    const plan = new RunPlan(true);
    plan.add(item('bio27', undefined, { status: 'failed', plan: 'fails' }));
    plan.add(item('Bad Id!', undefined, { status: 'failed', plan: 'invalid' }));
    expect(plan.lines()).toEqual([
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
