import { describe, expect, it } from 'vitest';
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

/**
 * A local store restored: the memory distrusts what it acknowledged since, and --prune-memberships
 * judges such a user by every link examctl ever pruned from it. Only a link the store holds is
 * deleted and reported `removed`: one pruned long before the restored point is gone there, and the
 * user is no mover (docs/sync.md, "Movers").
 */
const header = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';
const row = (i: number, hierarchy: string, last = `L${i}`) =>
  `u-${i},F${i},${last},u${i}@example.test,u-${i},Candidate,${hierarchy}`;

describe('--prune-memberships after a local store was restored', () => {
  it('removes and reports only the links the store holds', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const write = (name: string, rows: string[]) => writeFile(join(dir, name), `${[header, ...rows].join('\n')}\n`);
      const nightly = ['user', 'sync', '--changed-only', '--prune-memberships', '--json'];
      expect((await cli(['local', 'init'])).code).toBe(0);
      await write('n1.csv', [row(0, 'H-SOUTH'), row(1, 'H-NORTH')]);
      await write('n2.csv', [row(0, 'H-NORTH'), row(1, 'H-NORTH')]);
      await write('n3.csv', [row(0, 'H-NORTH', 'L0-n3'), row(1, 'H-NORTH', 'L1-n3')]);
      expect((await cli([...nightly, '--file', 'n1.csv'])).code).toBe(0);
      // Night 2: u-0 moves, H-SOUTH pruned.
      const n2 = JSON.parse((await cli([...nightly, '--file', 'n2.csv'])).stdout);
      expect(n2.items.find((item: { id: string }) => item.id === 'u-0').removed).toEqual(['H-SOUTH']);
      await cp(join(dir, 'store'), join(dir, 'backup'), { recursive: true, preserveTimestamps: true });
      expect((await cli([...nightly, '--file', 'n3.csv'])).code).toBe(0);
      // The store restored to the copy after night 2: night 3 goes again, and u-0 holds H-NORTH only.
      await rm(join(dir, 'store'), { recursive: true });
      await cp(join(dir, 'backup'), join(dir, 'store'), { recursive: true, preserveTimestamps: true });
      const again = await cli([...nightly, '--file', 'n3.csv']);
      expect(again.code).toBe(0);
      const { items, summary } = JSON.parse(again.stdout);
      for (const item of items) expect(item).toMatchObject({ status: 'ok', action: 'updated' });
      expect(items.map((item: { removed?: unknown }) => item.removed)).toEqual([undefined, undefined]);
      expect(summary.actions).toEqual({ update: 2 });
    }));
});
