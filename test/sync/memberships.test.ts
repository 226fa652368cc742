import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserRequest } from '../../src/domain/types.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { UsageError } from '../../src/system/errors.js';
import { thresholdOf } from '../../src/sync/user-sync-memory.js';
import { describeMove } from '../../src/report/report-writers.js';
import {
  linksAfter,
  prunableLinks,
  prunedAfter,
  pruneOf,
  readLinks,
  removalsOf,
  type ManagedLink,
} from '../../src/sync/memberships.js';
import { memoryFile } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { RunPlan } from '../../src/report/report-writers.js';

const user = (hierarchies?: UserRequest['Hierarchies']): UserRequest =>
  ({
    ExternalId: 'u1',
    FirstName: 'A',
    LastName: 'B',
    ...(hierarchies === undefined ? {} : { Hierarchies: hierarchies }),
  }) as UserRequest;
const L = (id: string, ...flags: string[]): ManagedLink => [id, flags];
const csv = (
  id: string,
  flags: Partial<
    Record<'IsCoordinator' | 'IsAdministrator' | 'HasViewReportsPermissions' | 'HasReScoringPermissions', boolean>
  > = {},
) => ({
  ExternalId: id,
  IsCoordinator: false,
  IsAdministrator: false,
  HasViewReportsPermissions: false,
  HasReScoringPermissions: false,
  ...flags,
});

describe('the links examctl manages (what the sync memory records)', () => {
  it('adds what an UPSERT sends, keeps a flag not sent, drops a flag sent false and a link deleted', () => {
    expect(linksAfter(undefined, [csv('H-A', { IsCoordinator: true }), csv('H-B')])).toEqual([
      L('H-A', 'coordinator'),
      L('H-B'),
    ]);
    // JSON: a flag not sent stays as the platform keeps it.
    expect(
      linksAfter([L('H-A', 'coordinator', 'reports')], [{ ExternalId: 'H-A', HasViewReportsPermissions: false }]),
    ).toEqual([L('H-A', 'coordinator')]);
    expect(linksAfter([L('H-A'), L('H-B')], [{ ExternalId: 'H-A', Action: 'DELETE' }])).toEqual([L('H-B')]);
    expect(linksAfter([L('H-A')], [{ ExternalId: 'H-A', Action: 'DELETE' }])).toBeUndefined();
    // A request without Hierarchies (a leaver's disable) changes nothing; a non-prune night keeps what it did not delete.
    expect(linksAfter([L('H-A')], undefined)).toEqual([L('H-A')]);
    expect(linksAfter([L('H-A')], [csv('H-B')])).toEqual([L('H-A'), L('H-B')]);
  });
});

describe('the links and flags examctl pruned (k: sent again to a distrusted user, trial48 F03)', () => {
  it('a link deleted is [id, []], flags revoked [id, [flags]]; one given again leaves; the 16 newest stay; only a distrusted user is judged with them', () => {
    const before = [L('H-A', 'coordinator'), L('H-B', 'coordinator', 'reports')];
    expect(prunedAfter(before, [L('H-B', 'reports'), L('H-C')], [L('H-D'), L('H-C'), L('H-B', 'reports')])).toEqual([
      L('H-A'),
      L('H-B', 'coordinator'),
      L('H-D'),
    ]);
    expect(prunedAfter(before, before)).toBeUndefined();
    expect(
      prunedAfter(
        Array.from({ length: 20 }, (_, i) => L(`H-${i}`)),
        undefined,
      )?.map(([id]) => id),
    ).toEqual(Array.from({ length: 16 }, (_, i) => `H-${i}`));
    expect(prunableLinks({ digest: 'd', links: [L('H-A')], pruned: [L('H-B')] })).toEqual([L('H-A')]);
    expect(
      pruneOf(
        prunableLinks({ digest: '', links: [L('H-A', 'coordinator')], pruned: [L('H-B'), L('H-A', 'reports')] }),
        user([{ ExternalId: 'H-A' }]),
        true,
      )?.removed,
    ).toEqual(['H-A:coordinator', 'H-A:reports', 'H-B']);
  });
});

describe('the links as a memory line holds them', () => {
  it('structured, so an id holding ":" or a flag word is itself; cell words read only where unambiguous; anything else (an unknown flag, an empty id) is not a list of links', () => {
    expect(
      readLinks([
        ['SCH:MATH', ['coordinator']],
        ['SCH:coordinator', []],
      ]),
    ).toEqual([L('SCH:MATH', 'coordinator'), L('SCH:coordinator')]);
    expect(readLinks(['H-A', 'H-A:coordinator', 'SCH:MATH'])).toEqual([L('H-A')]);
    expect(readLinks([['H-A', []], 'H-B'])).toEqual([L('H-A'), L('H-B')]);
    expect(readLinks([['H-A', ['cordinator']]])).toBeUndefined();
    expect(readLinks([['', []]])).toBeUndefined();
    expect(readLinks([1])).toBeUndefined();
    expect(readLinks([['H-A', 'coordinator']])).toBeUndefined();
    expect(describeMove(['SCH:MATH', 'SCH:MATH:coordinator'])).toBe('leaves SCH:MATH; SCH:MATH: no longer coordinator');
  });
});

describe('pruneOf: what the request of a mover adds', () => {
  it('DELETEs each managed link the file no longer lists; joins are said, never touched', () => {
    const prune = pruneOf([L('H-A')], user([csv('H-D')]), true)!;
    expect(prune.request.Hierarchies).toEqual([csv('H-D'), { ExternalId: 'H-A', Action: 'DELETE' }]);
    expect(prune.removed).toEqual(['H-A']);
    expect(prune.joined).toEqual(['H-D']);
    expect(describeMove(prune.removed, prune.joined)).toBe('leaves H-A; joins H-D');
  });

  it('sends false for a flag examctl sent true that a JSON record no longer gives; a CSV cell already says false', () => {
    const json = pruneOf([L('H-A', 'coordinator')], user([{ ExternalId: 'H-A' }]), true)!;
    expect(json.request.Hierarchies).toEqual([{ ExternalId: 'H-A', IsCoordinator: false }]);
    expect(json.added).toBe(true);
    const cell = pruneOf([L('H-A', 'coordinator')], user([csv('H-A')]), true)!;
    expect(cell.added).toBe(false);
    expect(cell.request.Hierarchies).toEqual([csv('H-A')]);
    expect(describeMove(cell.removed)).toBe('H-A: no longer coordinator');
  });

  it('an empty cell removes every managed link; no Hierarchies stated, nothing; what examctl never sent, nothing', () => {
    expect(pruneOf([L('H-A'), L('H-B', 'reports')], user(), true)!.request.Hierarchies).toEqual([
      { ExternalId: 'H-A', Action: 'DELETE' },
      { ExternalId: 'H-B', Action: 'DELETE' },
    ]);
    expect(pruneOf([L('H-A')], user(), false)).toBeUndefined();
    expect(pruneOf(undefined, user([csv('H-B')]), true)).toBeUndefined();
    // A flag examctl never sent true is left alone (the file's own value is sent as it is).
    expect(pruneOf([L('H-A')], user([{ ExternalId: 'H-A' }]), true)).toBeUndefined();
    // A link the file deletes itself is the file's.
    expect(pruneOf([L('H-A')], user([{ ExternalId: 'H-A', Action: 'DELETE' }]), true)).toBeUndefined();
  });

  it('counts removals from a value as read (the --max-prune count), a value that is not a list counting none', () => {
    expect(removalsOf([L('H-A'), L('H-B')], [csv('H-B')])).toBe(1);
    expect(removalsOf([L('H-A')], undefined)).toBe(1);
    expect(removalsOf([L('H-A')], 'H-A')).toBe(0);
  });
});

describe('--max-prune', () => {
  it('defaults to 10 %, or up to 100 but at most 25 %, of the remembered users; N or P%; anything else is exit 2', () => {
    expect(thresholdOf('--max-prune', undefined, 300).limit).toBe(75);
    expect(thresholdOf('--max-prune', undefined, 400).limit).toBe(100);
    expect(thresholdOf('--max-prune', undefined, 50_000).limit).toBe(5_000);
    expect(thresholdOf('--max-prune', '40%', 300).limit).toBe(120);
    expect(thresholdOf('--max-prune', '12', 300).limit).toBe(12);
    expect(() => thresholdOf('--max-prune', 'many', 300)).toThrow(/--max-prune must be/);
    expect(() => thresholdOf('--max-prune', 'many', 300)).toThrow(UsageError);
  });
});

describe('the plan line of a mover', () => {
  it('says what it leaves, joins and no longer is', () => {
    const plan = new RunPlan();
    plan.add({
      source: { file: 'f', line: 2 },
      id: 'jm-0',
      status: 'ok',
      errors: [],
      removed: ['H-A'],
      joined: ['H-D'],
    });
    plan.add({
      source: { file: 'f', line: 3 },
      id: 'jm-100',
      status: 'ok',
      errors: [],
      action: 'updated',
      changedFields: ['Hierarchies'],
      removed: ['H-A:coordinator'],
    });
    expect(plan.lines({ prune: 2 })).toEqual([
      'plan: 2 to prune (movers)',
      '  ~ jm-0 (leaves H-A; joins H-D)',
      '  ~ jm-100 (H-A: no longer coordinator)',
    ]);
  });
});

describe('the sync memory keeps the links', () => {
  let dir: string;
  const target = { kind: 'local', store: '/s' } as const;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-links-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('across opens; a line whose links are not a list of ids is damage (exit 2 naming the file) once the run uses it, never dropped', async () => {
    const plain = { lock: false, lockTimeoutMs: 0, readOnly: false };
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    memory.record('u1', { digest: 'd', run: 'r', links: [L('H-A', 'coordinator'), L('H-B')] });
    memory.record('u2', { digest: 'd', run: 'r' });
    memory.record('u3', {
      digest: 'd',
      run: 'r',
      links: [L('H-A')],
      pruned: [L('H-B'), L('H-A', 'coordinator')],
      population: 'staff',
    });
    await memory.close();
    const again = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(again.entries.get('u1')?.links).toEqual([L('H-A', 'coordinator'), L('H-B')]);
    expect(again.entries.get('u2')?.links).toBeUndefined();
    expect([again.entries.get('u3')?.pruned, again.entries.populationsOfEntries().get('staff')?.count]).toEqual([
      [L('H-B'), L('H-A', 'coordinator')],
      1,
    ]);
    await again.close();
    const file = memoryFile(dir, target, 'users');
    const header = encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 1, kind: 'users', target }));
    writeFileSync(file, header + encodeChecksummedLine(JSON.stringify({ id: 'u1', d: 'd', r: 'r', h: [1] })));
    // Its checksum holds, so the memory opens (entries are parsed when the run asks for them):
    // the run that asks for u1, or goes through every entry (--disable-missing), is refused.
    const damagedOne = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(() => damagedOne.entries.get('u1')).toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: sync memory damaged: its links are not a list`),
    );
    expect(() => [...damagedOne.entries]).toThrow(/links are not a list/);
    expect(damagedOne.entries.get('u2')).toBeUndefined();
    await damagedOne.close();
  });
});
