import { describe, expect, it } from 'vitest';
import { describeDiscovery, discoverStore, searchDirectories } from '../../src/context/store-discovery.js';

const NAME = '.examctl-store';

function probeOf(stores: string[]) {
  const asked: string[] = [];
  return {
    asked,
    probe: {
      async isStore(dir: string) {
        asked.push(dir);
        return stores.includes(dir);
      },
    },
  };
}

describe('store discovery', () => {
  it('looks in the current directory, then each parent, stopping before home', () => {
    expect(searchDirectories('/home/ann/exams/2026/dec', '/home/ann')).toEqual([
      '/home/ann/exams/2026/dec',
      '/home/ann/exams/2026',
      '/home/ann/exams',
    ]);
  });

  it('outside home it stops before the filesystem root; at home or root only that directory', () => {
    expect(searchDirectories('/srv/exams/dec', '/home/ann')).toEqual(['/srv/exams/dec', '/srv/exams', '/srv']);
    expect(searchDirectories('/home/ann', '/home/ann')).toEqual(['/home/ann']);
    expect(searchDirectories('/', '/home/ann')).toEqual(['/']);
    expect(searchDirectories('/srv/x', undefined)).toEqual(['/srv/x', '/srv']);
  });

  it("finds a parent's store and names it relative to where examctl runs", async () => {
    const { probe, asked } = probeOf(['/home/ann/exams/.examctl-store']);
    const found = await discoverStore({ cwd: '/home/ann/exams/2026/dec', home: '/home/ann', storeName: NAME, probe });
    expect(found).toEqual({ store: '/home/ann/exams/.examctl-store', found: true });
    expect(asked).toEqual([
      '/home/ann/exams/2026/dec/.examctl-store',
      '/home/ann/exams/2026/.examctl-store',
      '/home/ann/exams/.examctl-store',
    ]);
    expect(describeDiscovery(found, '/home/ann/exams/2026/dec')).toBe(
      'using the local store ../../.examctl-store (found in a parent directory: /home/ann/exams/.examctl-store)',
    );
  });

  it('the nearest store wins; one in the current directory needs no mention', async () => {
    const { probe } = probeOf(['/home/ann/exams/.examctl-store', '/home/ann/exams/2026/.examctl-store']);
    const nearest = await discoverStore({ cwd: '/home/ann/exams/2026', home: '/home/ann', storeName: NAME, probe });
    expect(nearest.store).toBe('/home/ann/exams/2026/.examctl-store');
    expect(describeDiscovery(nearest, '/home/ann/exams/2026')).toBeUndefined();
  });

  it("never picks up the home directory's store from below it; nothing found means the current directory's, not there yet", async () => {
    const { probe, asked } = probeOf(['/home/ann/.examctl-store']);
    const none = await discoverStore({ cwd: '/home/ann/exams', home: '/home/ann', storeName: NAME, probe });
    expect(none).toEqual({ store: '/home/ann/exams/.examctl-store', found: false });
    expect(asked).toEqual(['/home/ann/exams/.examctl-store']);
    expect(describeDiscovery(none, '/home/ann/exams')).toBeUndefined();
  });
});
