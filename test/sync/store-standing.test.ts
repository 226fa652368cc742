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
import { type SeenHead, sentAgain, standing, standingWords } from '../../src/sync/store-standing.js';

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
    expect(at('C'.repeat(22), [])).toEqual({ is: 'same', undone: new Set() });
    expect(at('D'.repeat(22), ['C'.repeat(22)])).toEqual({ is: 'ahead', at: seen[3], changed: new Set() });
    expect(at('A'.repeat(22), [])).toEqual({
      is: 'behind',
      at: seen[0],
      undone: new Set(['attemptA', 'attemptB']),
      changed: new Set(),
      partway: false,
    });
    expect(standingWords(at('A'.repeat(22), []), 'local', [])).toContain('back at where run r1 found it');
    expect(at('E'.repeat(22), ['A'.repeat(22), 'B'.repeat(22)])).toMatchObject({ is: 'behind', at: seen[2] });
    expect(at('E'.repeat(22), [])).toEqual({ is: 'other' });
    // A copy taken during attempt B (after r2's start, before its end): what B acknowledged that the copy holds stands.
    const midNight = standing(seen, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['users:u1'] });
    const again = sentAgain(midNight, 'users')!;
    expect([again('u1', 'attemptB'), again('u2', 'attemptB'), again('u3', 'attemptA')]).toEqual([false, true, false]);
    // It holds part of what r2 sent: not where r2 found it.
    expect(midNight).toMatchObject({ is: 'behind', at: seen[2], partway: true });
    expect(standingWords(midNight, 'local', [])).toContain('back at a point after run r2 began');
    // At the head a resume of r2 began at: it holds what r2's first attempt sent before it was killed.
    const resumedAt: SeenHead[] = [...seen.slice(0, 3), ['G'.repeat(22), 'r2', 'attemptB2', false], seen[3]!];
    const copy = standing(resumedAt, { head: 'G'.repeat(22), holds: ['B'.repeat(22), 'G'.repeat(22)], changed: [] });
    expect(copy).toMatchObject({ is: 'behind', at: resumedAt[3], partway: true });
    expect(standingWords(copy, 'local', [])).toContain('back at a point after run r2 began');
    // At the head a killed attempt began at: a restore only if the memory holds what that attempt acknowledged.
    const killed = standing([...seen, ['C'.repeat(22), 'r3', 'attemptC', false]], {
      head: 'C'.repeat(22),
      holds: [],
      changed: [],
    });
    expect(killed).toEqual({ is: 'same', undone: new Set(['attemptC']) });
    expect(standingWords(killed, 'local', [{ acked: 'attemptB' }, {}])).toBeUndefined();
    expect(standingWords(killed, 'local', [{ acked: 'attemptC' }])).toContain('restored');
    expect(standing([], { head: 'E'.repeat(22), holds: [], changed: [] })).toEqual({ is: 'unknown' });
    expect(standing(seen, undefined)).toEqual({ is: 'unknown' });
  });

  it("ahead: the store names what it changed after the memory's newest head; that goes again, but what the attempt begun there acknowledged", async () => {
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
    // A run that began at `start` and was killed: its own acknowledgements stand, another's changed one goes again.
    const stands = standing([[start, 'r1', 'attemptA', false]], answer);
    expect(stands).toMatchObject({ is: 'ahead' });
    const again = sentAgain(stands, 'users')!;
    expect([again('u1', 'attemptA'), again('u1', 'attemptB'), again('u0', 'attemptB')]).toEqual([false, true, false]);
    // Compacted since, and written after: the store still names exactly what it changed after `start`.
    await store.compact();
    await write('users', 'u2');
    const compacted = await store.standing!([start]);
    expect([compacted.holds, compacted.changed.sort()]).toEqual([[start], ['schedules:s1', 'users:u1', 'users:u2']]);
    const after = sentAgain(standing([[start, 'r1', 'attemptA', true]], compacted), 'users')!;
    expect([again('u0', 'attemptB'), after('u1', 'attemptA'), after('u2', 'attemptB')]).toEqual([false, true, true]);
    await store.close();
  });
});
