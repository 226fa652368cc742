/**
 * The store head and the one decision (src/sync/store-standing.ts), model-based: random histories
 * of nights over a real file store, kills at random points, restores of the store to random
 * earlier copies (by copy and in place, a copy taken mid-night too), compactions, resumes and
 * second resumes. The memory is modelled as SentMemory keeps it: the heads each attempt saw, the
 * attempt on each acknowledged entry, the attempts a restore undid (a resume's kept rows).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, openStore } from '../../src/engine/store/index.js';
import { headsToAsk, type SeenHead, sentAgain, standing } from '../../src/sync/store-standing.js';

const IDS = ['u0', 'u1', 'u2', 'u3', 'u4'];
// On a memory file system where there is one: a history's every commit is a durable write.
const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'examctl-standing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Step =
  | { t: 'night'; file: number[]; killAt: number | null }
  | { t: 'resume'; killAt: number | null }
  | { t: 'copy' }
  | { t: 'restore'; copy: number; inPlace: boolean }
  | { t: 'compact' };

const file = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: IDS.length, maxLength: IDS.length });
const kill = fc.option(fc.integer({ min: 0, max: IDS.length - 1 }), { nil: null });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('night' as const), file, killAt: kill }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('resume' as const), killAt: kill }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('copy' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('restore' as const), copy: fc.nat(), inPlace: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('compact' as const) }) },
);

interface Memory {
  entries: Map<string, { digest: string; acked: string }>;
  heads: SeenHead[];
  undone: Set<string>;
}

let histories = 0;

async function history(steps: Step[]): Promise<void> {
  const dir = join(root, `h${histories++}`);
  await createStore(dir, []);
  const memory: Memory = { entries: new Map(), heads: [], undone: new Set() };
  const copies: { path: string; acks: number }[] = [];
  /** Each acknowledgement's number, and each id's last: a restore to a copy undoes the acknowledgements after it. */
  let acks = 0;
  const lastAck = new Map<string, number>();
  /** The run a resume takes over, its file and the ids its journal keeps as acknowledged. */
  let last: { run: string; file: number[]; kept: Set<string>; ended: boolean } | undefined;
  /** Ids whose value a restore changed: sending one the store holds is what the restore undid. */
  const mayResend = new Set<string>();
  let completed: number[] | undefined;
  let attempts = 0;
  const content = async () => {
    const store = await openStore(dir, { readOnly: true });
    const users = new Map([...(store.state.get('users') ?? new Map())].map(([k, v]) => [k, String(v)]));
    await store.close();
    return users;
  };

  const attempt = async (run: string, values: number[], killAt: number | null, kept: Set<string>) => {
    const store = await openStore(dir);
    const seen = memory.heads;
    const stands = standing(seen, await store.standing!(headsToAsk(seen)));
    const undone =
      stands.is === 'same' || stands.is === 'behind'
        ? stands.undone
        : stands.is === 'other'
          ? new Set(seen.map(([, , at]) => at))
          : new Set<string>();
    const again = sentAgain(stands, 'users');
    for (const [id, entry] of memory.entries)
      if (again?.(id, entry.acked)) memory.entries.set(id, { ...entry, digest: '' });
    for (const one of undone) memory.undone.add(one);
    const tag = `attempt${attempts++ % 10}`;
    const start = await store.standing!();
    memory.heads = [...memory.heads, [start.head, run, tag, false] as SeenHead].slice(-64);
    for (const [n, id] of IDS.entries()) {
      if (killAt === n) {
        await store.close();
        return false;
      }
      const value = `v${values[n]}`;
      const entry = memory.entries.get(id);
      if (kept.has(id) && !(entry !== undefined && memory.undone.has(entry.acked) && entry.digest === '')) continue;
      if (entry?.digest === value) continue;
      const held = store.state.get('users')?.get(id) === value;
      // Nothing is sent that the store already held, but what a restore undid.
      expect(held && !mayResend.has(id), `${id} sent again though the store held ${value}`).toBe(false);
      await store.transact(() => ({ result: undefined, changes: [{ collection: 'users', key: id, value }] }));
      mayResend.delete(id);
      lastAck.set(id, ++acks);
      memory.entries.set(id, { digest: value, acked: tag });
      kept.add(id);
    }
    memory.heads = [...memory.heads, [(await store.standing!()).head, run, tag, true] as SeenHead].slice(-64);
    await store.close();
    return true;
  };

  for (const [index, each] of steps.entries()) {
    if (each.t === 'night' || (each.t === 'resume' && last !== undefined && !last.ended)) {
      const run = each.t === 'night' ? `run-${index}` : last!.run;
      const values = each.t === 'night' ? each.file : last!.file;
      const kept = each.t === 'night' ? new Set<string>() : last!.kept;
      last = { run, file: values, kept, ended: await attempt(run, values, each.killAt, kept) };
      completed = last.ended ? values : undefined;
    } else if (each.t === 'copy') {
      const copy = join(root, `c${histories}-${copies.length}`);
      cpSync(dir, copy, { recursive: true });
      copies.push({ path: copy, acks });
    } else if (each.t === 'restore' && copies.length > 0) {
      const before = await content();
      const { path: copy, acks: copied } = copies[each.copy % copies.length]!;
      if (each.inPlace)
        for (const name of readdirSync(copy)) writeFileSync(join(dir, name), readFileSync(join(copy, name)));
      else {
        rmSync(dir, { recursive: true });
        cpSync(copy, dir, { recursive: true });
      }
      const after = await content();
      for (const id of IDS) if (before.get(id) !== after.get(id)) mayResend.add(id);
      // What was acknowledged after the copy was taken is sent again, exactly that (docs/sync.md,
      // "Where the store stands"), even where the copy happens to hold the same value.
      for (const [id, ack] of lastAck) if (ack > copied) mayResend.add(id);
      // The file of the last completed night still stands: the next night of it must put it back.
      completed = undefined;
    } else if (each.t === 'compact') {
      const store = await openStore(dir);
      await store.compact();
      await store.close();
    }
  }
  // The store equals what the last completed night's file says.
  if (completed !== undefined) {
    const now = await content();
    expect(IDS.map((id) => now.get(id))).toEqual(completed.map((value) => `v${value}`));
  }
  rmSync(dir, { recursive: true, force: true });
}

describe('where the store stands (docs/sync.md, "Where the store stands")', () => {
  it('after any history of nights, kills, store restores (copy, in place, mid-night copies), compactions and resumes: the store is what the last completed night says, and nothing the store held was sent again but what a restore undid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), (steps) => history(steps)),
      {
        numRuns: 500,
        examples: [
          // A restore to a copy that holds u1's value by chance: u1's later acknowledgement is sent again, exactly that.
          [
            [
              { t: 'night', file: [0, 2, 0, 0, 0], killAt: null },
              { t: 'copy' },
              { t: 'night', file: [0, 0, 0, 0, 0], killAt: null },
              { t: 'night', file: [0, 2, 0, 0, 0], killAt: null },
              { t: 'restore', copy: 0, inPlace: false },
              { t: 'night', file: [0, 2, 0, 0, 0], killAt: null },
              { t: 'night', file: [0, 0, 0, 0, 0], killAt: null },
            ],
          ],
        ],
      },
    );
  }, 120_000);

  it('decides from the heads alone: same, ahead, behind (what each later attempt acknowledged goes again), other', () => {
    const seen: SeenHead[] = [
      ['A'.repeat(22), 'r1', 'attemptA', false],
      ['B'.repeat(22), 'r1', 'attemptA', true],
      ['B'.repeat(22), 'r2', 'attemptB', false],
      ['C'.repeat(22), 'r2', 'attemptB', true],
    ];
    const at = (head: string, holds: string[]) => standing(seen, { head, holds });
    expect(at('C'.repeat(22), [])).toEqual({ is: 'same', undone: new Set() });
    expect(at('D'.repeat(22), ['C'.repeat(22)])).toEqual({ is: 'ahead', at: seen[3], changed: undefined });
    expect(at('A'.repeat(22), [])).toEqual({
      is: 'behind',
      at: seen[0],
      undone: new Set(['attemptA', 'attemptB']),
      changed: undefined,
    });
    expect(at('E'.repeat(22), ['A'.repeat(22), 'B'.repeat(22)])).toMatchObject({ is: 'behind', at: seen[2] });
    expect(at('E'.repeat(22), [])).toEqual({ is: 'other' });
    // A copy taken during attempt B (after r2's start, before its end): what B acknowledged that the copy holds stands.
    const midNight = standing(seen, { head: 'F'.repeat(22), holds: ['B'.repeat(22)], changed: ['users:u1'] });
    const again = sentAgain(midNight, 'users')!;
    expect([again('u1', 'attemptB'), again('u2', 'attemptB'), again('u3', 'attemptA')]).toEqual([false, true, false]);
    expect(standing([], { head: 'E'.repeat(22), holds: [] })).toEqual({ is: 'unknown' });
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
    expect(answer.changed?.sort()).toEqual(['schedules:s1', 'users:u1']);
    // A run that began at `start` and was killed: its own acknowledgements stand, another's changed one goes again.
    const stands = standing([[start, 'r1', 'attemptA', false]], answer);
    expect(stands).toMatchObject({ is: 'ahead' });
    const again = sentAgain(stands, 'users')!;
    expect([again('u1', 'attemptA'), again('u1', 'attemptB'), again('u0', 'attemptB')]).toEqual([false, true, false]);
    // Compacted since: the store cannot say what it changed; the memory stands as it says.
    await store.compact();
    const compacted = standing([[start, 'r1', 'attemptA', true]], await store.standing!([start]));
    expect(compacted).toMatchObject({ is: 'ahead', changed: undefined });
    expect(sentAgain(compacted, 'users')).toBeUndefined();
    await store.close();
  });
});
