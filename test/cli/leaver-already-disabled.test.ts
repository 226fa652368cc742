import { describe, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeCli, withTempDir } from './helpers.js';

/**
 * A leaver the memory holds enabled whose login the local store already holds disabled (the memory
 * rebuilt by `synced adopt` of two nights' files: the first night's leaver stays as the first file
 * gave it, docs/sync.md, "When the memory is lost"). Its disable goes again and the engine changes
 * nothing: every place says `unchanged`, never `disabled` with a `before` the store did not hold.
 */
const header = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (i: number) => `u-${i},F${i},L${i},u${i}@example.test,u-${i},Candidate`;

describe('a leaver the store already holds disabled', () => {
  it('is reported unchanged, not counted disabled', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const write = (name: string, rows: string[]) => writeFile(join(dir, name), `${[header, ...rows].join('\n')}\n`);
      const nightly = ['user', 'sync', '--changed-only', '--disable-missing', '--max-disable', '50%', '--json'];
      expect((await cli(['local', 'init'])).code).toBe(0);
      await write('n1.csv', [row(0), row(1), row(2), row(3)]);
      await write('n2.csv', [row(0), row(1), row(2)]);
      await write('n3.csv', [row(0), row(1)]);
      expect((await cli([...nightly, '--file', 'n1.csv'])).code).toBe(0);
      const n2 = await cli([...nightly, '--file', 'n2.csv']);
      expect(JSON.parse(n2.stdout).summary.disabled).toBe(1);
      // The memory lost, rebuilt from both nights' files: u-3 stays as n1 gave it (enabled).
      await rm(join(dir, 'synced'), { recursive: true });
      expect((await cli(['synced', 'adopt', '--file', 'n1.csv', '--file', 'n2.csv'])).code).toBe(0);
      const n3 = await cli([...nightly, '--file', 'n3.csv']);
      expect(n3.code).toBe(0);
      const { items, summary } = JSON.parse(n3.stdout);
      const byId = (id: string) => items.find((item: { id: string }) => item.id === id);
      expect(byId('u-2')).toMatchObject({ status: 'ok', action: 'disabled' });
      expect(byId('u-3')).toMatchObject({ status: 'ok', action: 'unchanged' });
      expect(byId('u-3').changes).toBeUndefined();
      expect(summary.disabled).toBe(1);
      expect(summary.actions).toEqual({ disable: 1, unchanged: 3 });
      // Remembered disabled all the same: the next night sends neither again.
      const n4 = JSON.parse((await cli([...nightly, '--file', 'n3.csv'])).stdout);
      expect(n4.summary.actions).toEqual({ unchanged: 2 });
    }));
});
