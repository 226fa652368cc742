/**
 * The one decision of src/sync/store-standing.ts, from the heads alone, and the store's own answer of
 * what it changed. Histories of nights, kills, store copies and restores, compactions and resumes over
 * the real commands: nights-property.test.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, openStore } from '../../src/engine/store/index.js';
import {
  batchTag,
  KEPT_BATCH_HEADS,
  keptHeads,
  memoryStanding,
  type SeenHead,
  sentAgain,
  standing,
  standingWords,
  undoneBy,
} from '../../src/sync/store-standing.js';

const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'examctl-standing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('where the store stands (docs/sync.md, "Where the store stands")', () => {
  it('decides from the heads alone: same, ahead, behind (what each later attempt acknowledged goes again), other', () => {
    const seen: SeenHead[] = [
      ['A'.repeat(22), 'r1', 'attemptA', false],
      ['B'.repeat(22), 'r1', 'attemptA', true],
      ['B'.repeat(22), 'r2', 'attemptB', false],
      ['C'.repeat(22), 'r2', 'attemptB', true],
    ];
    const at = (head: string, holds: string[]) => standing(seen, { head, holds, changed: [] });
    expect(at('C'.repeat(22), [])).toEqual({ is: 'same', at: seen[3], undone: new Set(), midRun: false });
    expect(at('D'.repeat(22), ['C'.repeat(22)])).toEqual({ is: 'ahead', at: seen[3], changed: new Set() });
    expect(at('A'.repeat(22), [])).toEqual({
      is: 'behind',
      at: seen[0],
      undone: new Set(['attemptA', 'attemptB']),
      changed: new Set(),
      moved: false,
      midRun: false,
    });
    expect(standingWords(at('A'.repeat(22), []), 'local', [], 'users')).toContain('back at where run r1 found it');
    expect(at('E'.repeat(22), ['A'.repeat(22), 'B'.repeat(22)])).toMatchObject({ is: 'behind', at: seen[2] });
    expect(at('E'.repeat(22), [])).toEqual({ is: 'other' });
    // A copy taken during attempt B (after r2's start, before its end): all B acknowledged after that head goes
    // again, what the copy holds too (u1: the store's change since may be another writer's).
    const midNight = standing(seen, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['users:u1'] });
    const again = sentAgain(midNight, 'users')!;
    expect([again('u1', 'attemptB'), again('u2', 'attemptB'), again('u3', 'attemptA')]).toEqual([true, true, false]);
    // It holds part of what r2 sent (u1, which B acknowledged, changed since): not where r2 found it.
    expect(midNight).toMatchObject({ is: 'behind', at: seen[2], moved: true, midRun: false });
    expect(standingWords(midNight, 'local', [['u1', { acked: 'attemptB' }]], 'users')).toContain(
      'back at a point after run r2 began',
    );
    // Restored to where r2 began, then others wrote (a schedule): it holds nothing r2 sent, so where r2 found it.
    const forked = standing(seen, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['schedules:S1'] });
    expect(standingWords(forked, 'local', [['u1', { acked: 'attemptB' }]], 'users')).toContain(
      'back at where run r2 found it',
    );
    // Restored to where r1 ended (a backup after a night; r2 began later, another command wrote between), then
    // another command wrote again: it holds nothing r2 sent, so where r1 left it; part of it only where it
    // changed what r2 acknowledged.
    const nights: SeenHead[] = [
      seen[0]!,
      seen[1]!,
      ['C'.repeat(22), 'r2', 'attemptC', false],
      ['D'.repeat(22), 'r2', 'attemptC', true],
    ];
    const afterEnd: [string, { acked: string }][] = [['S1', { acked: 'attemptC' }]];
    const othersWrote = standing(nights, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['users:u1'] });
    expect(othersWrote).toMatchObject({ is: 'behind', at: nights[1], moved: true });
    expect(standingWords(othersWrote, 'local', afterEnd, 'schedules')).toContain('back at where run r1 left it');
    const partOfIt = standing(nights, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['schedules:S1'] });
    expect(standingWords(partOfIt, 'local', afterEnd, 'schedules')).toContain(
      'back at a point after run r1 ended, with only part of what was written since',
    );
    // At the head a resume of r2 began at: it holds what r2's first attempt sent before it was killed.
    const resumedAt: SeenHead[] = [...seen.slice(0, 3), ['G'.repeat(22), 'r2', 'attemptB2', false], seen[3]!];
    const copy = standing(resumedAt, { head: 'G'.repeat(22), holds: ['B'.repeat(22), 'G'.repeat(22)], changed: [] });
    expect(copy).toMatchObject({ is: 'behind', at: resumedAt[3], midRun: true });
    expect(standingWords(copy, 'local', [], 'users')).toContain('back at a point after run r2 began');
    // At the head a killed attempt began at: a restore only if the memory holds what that attempt acknowledged.
    const killed = standing([...seen, ['C'.repeat(22), 'r3', 'attemptC', false]], {
      head: 'C'.repeat(22),
      holds: [],
      changed: [],
    });
    expect(killed).toEqual({
      is: 'same',
      at: ['C'.repeat(22), 'r3', 'attemptC', false],
      undone: new Set(['attemptC']),
      midRun: false,
    });
    expect(
      standingWords(
        killed,
        'local',
        [
          ['u1', { acked: 'attemptB' }],
          ['u2', {}],
        ],
        'users',
      ),
    ).toBeUndefined();
    expect(standingWords(killed, 'local', [['u1', { acked: 'attemptC' }]], 'users')).toContain(
      'back at where run r3 found it',
    );
    expect(standing([], { head: 'E'.repeat(22), holds: [], changed: [] })).toEqual({ is: 'unknown' });
    expect(standing(seen, undefined)).toEqual({ is: 'unknown' });
  });

  it("memoryStanding: with no head recorded, another store instance than the memory's is another store; heads decide where recorded", () => {
    const store = { head: 'E'.repeat(22), holds: [], changed: [] };
    expect(memoryStanding([], 'instance-A', store, 'instance-B')).toEqual({ is: 'other', instance: 'instance-B' });
    expect(standingWords(memoryStanding([], 'instance-A', store, 'instance-B'), 'local', [], 'users')).toContain(
      'instance-B',
    );
    expect(memoryStanding([], 'instance-B', store, 'instance-B')).toEqual({ is: 'unknown' });
    // Nothing recorded, a store without an instance, or no store: nothing tells.
    expect(memoryStanding([], undefined, store, 'instance-B')).toEqual({ is: 'unknown' });
    expect(memoryStanding([], 'instance-A', store, undefined)).toEqual({ is: 'unknown' });
    expect(memoryStanding([], 'instance-A', undefined, 'instance-B')).toEqual({ is: 'unknown' });
    // A head recorded: the heads decide, whatever instance the header names.
    const seen: SeenHead[] = [['E'.repeat(22), 'r1', 'attemptA', true]];
    expect(memoryStanding(seen, 'instance-A', store, 'instance-B').is).toBe('same');
  });

  it("ahead: the store names what it changed after the memory's newest head; that goes again, and what the attempt begun there acknowledged", async () => {
    const dir = join(root, 'ahead');
    await createStore(dir, []);
    const store = await openStore(dir);
    const write = (collection: 'users' | 'schedules', key: string) =>
      store.transact(() => ({ result: undefined, changes: [{ collection, key, value: key }] }));
    await write('users', 'u0');
    const start = (await store.standing!()).head;
    await write('users', 'u1');
    await write('schedules', 's1');
    const answer = await store.standing!([start]);
    expect(answer.holds).toEqual([start]);
    expect(answer.changed.sort()).toEqual(['schedules:s1', 'users:u1']);
    // A run that began at `start` and was killed: its own acknowledgements go again (the store's change may be
    // another writer's), as does another's changed one; what nobody changed since stands.
    const stands = standing([[start, 'r1', 'attemptA', false]], answer);
    expect(stands).toMatchObject({ is: 'ahead' });
    const again = sentAgain(stands, 'users')!;
    expect([again('u1', 'attemptA'), again('u1', 'attemptB'), again('u0', 'attemptB')]).toEqual([true, true, false]);
    // Compacted since, and written after: the store still names exactly what it changed after `start`.
    await store.compact();
    await write('users', 'u2');
    const compacted = await store.standing!([start]);
    expect([compacted.holds, compacted.changed.sort()]).toEqual([[start], ['schedules:s1', 'users:u1', 'users:u2']]);
    const after = sentAgain(standing([[start, 'r1', 'attemptA', true]], compacted), 'users')!;
    expect([again('u0', 'attemptB'), after('u1', 'attemptA'), after('u2', 'attemptB')]).toEqual([false, true, true]);
    await store.close();
  });

  describe('a head with each batch of acknowledgements (a run killed outright records no end head)', () => {
    const h = (letter: string) => letter.repeat(22);
    // r1 ended at B; r2 began at B, recorded batch heads C and D (tags attemptB.1, attemptB.2), was killed.
    const seen: SeenHead[] = [
      [h('A'), 'r1', 'attemptA', false],
      [h('B'), 'r1', 'attemptA', true],
      [h('B'), 'r2', 'attemptB', false],
      [h('C'), 'r2', batchTag('attemptB', 1), false],
      [h('D'), 'r2', batchTag('attemptB', 2), false],
    ];
    const tags = ['attemptA', 'attemptB', 'attemptB.1', 'attemptB.2', 'attemptB.3'];

    it('a tag undoes its attempt from its batch on (a batch whose head was never written is judged with the one before)', () => {
      expect(batchTag('attemptB', 0)).toBe('attemptB');
      expect(batchTag('attemptB', 36)).toBe('attemptB.10');
      expect(tags.map(undoneBy(['attemptB.2']))).toEqual([false, false, false, true, true]);
      expect(tags.map(undoneBy(['attemptB.2', 'attemptB']))).toEqual([false, true, true, true, true]);
      expect([undoneBy([])('attemptB'), undoneBy(['attemptB'])(undefined)]).toEqual([false, false]);
    });

    it('restored to a copy taken between batches 1 and 2: what came after batch 1 goes again, what the store changed since too', () => {
      const found = standing(seen, { head: h('E'), holds: [h('B'), h('C')], changed: ['users:u3'] });
      expect(found).toMatchObject({ is: 'behind', at: seen[3], midRun: true });
      const again = sentAgain(found, 'users')!;
      // u1 before the copy's batch, u2 after it and lost, u3 after it and in the copy (or another's write since: only
      // the value could tell), u4 in a batch whose head was lost.
      const acked: [string, string][] = [
        ['u0', 'attemptA'],
        ['u1', 'attemptB'],
        ['u2', 'attemptB.1'],
        ['u3', 'attemptB.1'],
        ['u4', 'attemptB.3'],
      ];
      expect(acked.map(([id, tag]) => again(id, tag))).toEqual([false, false, true, true, true]);
      expect(standingWords(found, 'local', [], 'users')).toContain('back at a point after run r2 began');
    });

    it("restored to a copy at the killed run's newest batch head: back at a point after that run began, not where it began", () => {
      const found = standing(seen, { head: h('D'), holds: [h('B'), h('C'), h('D')], changed: [] });
      expect(found).toMatchObject({ is: 'same', at: seen[4], midRun: true });
      expect(standingWords(found, 'local', [['u4', { acked: 'attemptB.2' }]], 'users')).toContain(
        'back at a point after run r2 began',
      );
    });

    it("ahead of the killed run's newest batch head: its later acknowledgements go again, written or not", () => {
      const found = standing(seen, { head: h('E'), holds: [h('D')], changed: ['users:u3', 'users:u5'] });
      expect(found).toMatchObject({ is: 'ahead', at: seen[4] });
      const again = sentAgain(found, 'users')!;
      // u2 before that head (the store holds it); u3, u4 after it, u3 written (by the run, or by another writer
      // after it: only the value could tell); u5 another's write since.
      expect([again('u2', 'attemptB.1'), again('u3', 'attemptB.2'), again('u4', 'attemptB.3')]).toEqual([
        false,
        true,
        true,
      ]);
      expect([again('u5', 'attemptA'), again('u6', 'attemptA')]).toEqual([true, false]);
      // An ended run's end head: only what others changed since goes.
      const ended = standing(seen.slice(0, 2), { head: h('E'), holds: [h('B')], changed: [] });
      expect(sentAgain(ended, 'users')).toBeUndefined();
    });

    it('batch heads go when their run records its end head; at most KEPT_BATCH_HEADS are kept, the oldest going first', () => {
      const end: SeenHead = [h('F'), 'r2', 'attemptB2', true];
      expect(keptHeads(seen, end)).toEqual([...seen.slice(0, 3), end]);
      expect(keptHeads(seen, undefined)).toEqual(seen);
      let many = seen;
      for (let n = 3; n < 40; n++)
        many = keptHeads(many, [h(String.fromCharCode(70 + (n % 20))), 'r2', batchTag('attemptB', n), false]);
      const batches = many.filter(([, , tag]) => tag.includes('.'));
      expect(batches).toHaveLength(KEPT_BATCH_HEADS);
      expect(batches.at(-1)![2]).toBe(batchTag('attemptB', 39));
      expect(many.slice(0, 3)).toEqual(seen.slice(0, 3));
    });
  });
});
