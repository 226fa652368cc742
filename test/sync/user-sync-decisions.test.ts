import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/context/command-deps.js';
import type { ReportItem } from '../../src/report/run-report.js';
import { USER_SYNC_NOTES, UserSyncMemory, type UserSyncFlags } from '../../src/sync/user-sync-memory.js';

/** A memory as user sync makes it, never opened: what it decides from its flags alone. */
function memoryWith(flags: Omit<UserSyncFlags, 'file'>): UserSyncMemory {
  return new UserSyncMemory(
    { file: 'users.csv', ...flags },
    {} as CommandDeps,
    () => Promise.reject(new Error('not resolved')),
    async function* () {},
    () => {
      throw new Error('not built');
    },
  );
}

describe("user sync's decisions from its flags (sync/user-sync-memory.ts)", () => {
  it('the confirmation describes the plan only of a run that decides from the memory', () => {
    expect(memoryWith({}).hooks()).not.toHaveProperty('describePlan');
    for (const flag of ['changedOnly', 'disableMissing', 'pruneMemberships'] as const)
      expect(memoryWith({ [flag]: true }).hooks()).toHaveProperty('describePlan');
  });

  it('the summary counts unchanged, disabled and movers apart, movers in a dry run too', () => {
    const item = (facts: Partial<ReportItem>) => ({ status: 'ok', errors: [], ...facts }) as ReportItem;
    const counted = (facts: Partial<ReportItem>) => USER_SYNC_NOTES.map((note) => note.counts(item(facts)));
    expect(counted({ action: 'disabled' })).toEqual([false, true, false]);
    expect(counted({ action: 'updated', removed: [] } as Partial<ReportItem>)).toEqual([false, false, true]);
    expect(counted({ action: 'created' })).toEqual([false, false, false]);
    expect(USER_SYNC_NOTES.map((note) => note.inDryRun === true)).toEqual([false, false, true]);
  });
});
