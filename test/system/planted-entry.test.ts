import { mkdirSync, chmodSync, chownSync, lchownSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryProblem, entryProblem, openedProblem, plantedEntryProblem } from '../../src/system/trusted-place.js';
import { examctlStep } from '../support/in-process.js';
import { withTempDir } from '../support/temp-dir.js';

const root = process.getuid?.() === 0;

/** An output name another user planted (a link, a FIFO) is refused in every folder another user can write, not only sticky ones (trial 5: f03). */
describe.skipIf(process.platform === 'win32')('an entry another user planted at an output name', () => {
  it('is refused in any folder another user can write (0777 team folder, sticky or not), never in one only its owner writes', () =>
    withTempDir(async (dir) => {
      // Entries of `owner` (as root: a uid of nobody's; root's own are trusted), judged as uid 4242 would see them.
      const owner = root ? 1234 : process.getuid!();
      const other = { uid: 4242, home: dir };
      // A folder of root's (or, as another user, of ours) that only its owner writes: not refused as root.
      for (const [mode, refused] of [
        [0o777, true],
        [0o1777, true],
        [0o775, true],
        [0o755, !root],
      ] as const) {
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        symlinkSync(join(dir, 'victim.txt'), join(folder, 'report.csv'));
        if (root) lchownSync(join(folder, 'report.csv'), owner, owner);
        chmodSync(folder, mode);
        const problem = await plantedEntryProblem(join(folder, 'report.csv'), other);
        expect(problem !== undefined, `${mode.toString(8)}: ${problem}`).toBe(refused);
        if (refused)
          expect(problem).toContain(
            `${folder}/report.csv is already there, owned by uid ${owner}, in a folder another user can write`,
          );
      }
      expect(await plantedEntryProblem(join(dir, 'f777', 'report.csv'), { uid: owner, home: dir })).toBeUndefined();
    }));

  it('a link of another user to a folder, on the path, is refused as at the name (trial23 f03)', () =>
    withTempDir(async (dir) => {
      const owner = root ? 1234 : process.getuid!();
      for (const [mode, refused] of [
        [0o777, true],
        [0o755, !root],
      ] as const) {
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        symlinkSync(dir, join(folder, 'exports'));
        if (root) lchownSync(join(folder, 'exports'), owner, owner);
        chmodSync(folder, mode);
        const problem = await plantedEntryProblem(join(folder, 'exports', 'precious.csv'), { uid: 4242, home: dir });
        expect(problem, mode.toString(8)).toBe(
          refused
            ? `${folder}/exports is already there, owned by uid ${owner}, in a folder another user can write: choose another path`
            : undefined,
        );
      }
    }));

  // trial6 1: a teammate's report in a 2775 team folder; root writing in a 755 workspace the host user owns.
  it.skipIf(!root)(
    "leaves a plain file (replaced by a rename) and root's entries alone, but not a plain file in a sticky folder",
    () =>
      withTempDir(async (dir) => {
        for (const [mode, uid, as, refused] of [
          [0o2775, 1001, 1000, false],
          [0o755, 1000, 0, false],
          [0o1777, 1001, 1000, true],
        ] as const) {
          // The sticky folder is root's, as /tmp: only the file's owner (or root) renames over it.
          const folder = join(dir, `f${mode.toString(8)}`);
          mkdirSync(folder);
          writeFileSync(join(folder, 'report.csv'), 'old');
          lchownSync(join(folder, 'report.csv'), uid, 1000);
          symlinkSync(join(dir, 'victim.txt'), join(folder, 'root.csv'));
          lchownSync(folder, mode & 0o1000 ? 0 : 1000, 1000);
          chmodSync(folder, mode);
          expect(
            (await plantedEntryProblem(join(folder, 'report.csv'), { uid: as, home: dir })) !== undefined,
            mode.toString(8),
          ).toBe(refused);
          expect(await plantedEntryProblem(join(folder, 'root.csv'), { uid: as, home: dir })).toBeUndefined();
          // trial23 f11: root's own plain file in a sticky folder is no more replaceable by another user's rename.
          writeFileSync(join(folder, 'roots.csv'), 'old');
          expect(
            (await plantedEntryProblem(join(folder, 'roots.csv'), { uid: as, home: dir })) !== undefined,
            mode.toString(8),
          ).toBe(refused);
        }
      }),
  );
});

describe.skipIf(process.platform === 'win32')(
  "another user's link at the name of a place examctl takes trust from",
  () => {
    // trial31 F04: her link in /tmp to the user's prod store or config picked which of the user's places a job used.
    it.skipIf(!root)(
      "a place named through another user's link in a folder others can write is refused; the user's link or root's is followed",
      () =>
        withTempDir(async (dir) => {
          const home = join(dir, 'home');
          const shared = join(dir, 'shared');
          mkdirSync(join(home, 'store'), { recursive: true });
          writeFileSync(join(home, 'token'), 't', { mode: 0o600 });
          for (const path of [home, join(home, 'store'), join(home, 'token')]) chownSync(path, 4242, 4242);
          mkdirSync(shared);
          chmodSync(shared, 0o1777);
          const context = { uid: 4242, home };
          for (const [owner, refused] of [
            [1234, true],
            [0, false],
            [4242, false],
          ] as const) {
            const [store, token] = [join(shared, `store-${owner}`), join(shared, `token-${owner}`)];
            symlinkSync(join(home, 'store'), store);
            symlinkSync(join(home, 'token'), token);
            lchownSync(store, owner, owner);
            lchownSync(token, owner, owner);
            const words = (at: string) =>
              refused
                ? `${at} is already there, owned by uid ${owner}, in a folder another user can write: choose another path`
                : undefined;
            expect(await directoryProblem(store, context)).toBe(words(store));
            // A place not there yet under her link (a runs or sync directory examctl would make).
            expect(await directoryProblem(join(store, 'runs'), context)).toBe(words(store));
            const handle = await open(token, 'r');
            expect(await openedProblem(token, handle, context).finally(() => handle.close())).toBe(words(token));
          }
        }),
    );
    // trial34 F04: her link in the user's own group-writable folder stayed, and was followed, after the advised chmod go-w.
    it.skipIf(!root)(
      "her link in a folder of the user's is named with its removal, and still refused once the folder is closed",
      () =>
        withTempDir(async (dir) => {
          const [own, store] = [join(dir, 'own'), join(dir, 'own', 'store')];
          mkdirSync(join(dir, 'prod'));
          mkdirSync(own);
          chmodSync(own, 0o775);
          symlinkSync(join(dir, 'prod'), store);
          lchownSync(store, 1234, 1234);
          for (const path of [dir, join(dir, 'prod'), own]) chownSync(path, 4242, 4242);
          const context = { uid: 4242, home: dir };
          const words = `${store} is already there, owned by uid 1234, in a folder of yours: rm ${store}`;
          expect(await directoryProblem(store, context)).toBe(`${words}; chmod go-w ${own}`);
          chmodSync(own, 0o755);
          expect(await directoryProblem(store, context)).toBe(words);
          lchownSync(store, 4242, 4242);
          expect(await directoryProblem(store, context)).toBeUndefined();
        }),
    );
    it.skipIf(!root)(
      "--store naming her link is judged as named, not after the link is resolved: local init and local export refuse it; root's link is followed",
      () =>
        withTempDir(async (dir) => {
          const shared = join(dir, 'shared');
          mkdirSync(shared);
          mkdirSync(join(dir, 'prod'));
          chmodSync(shared, 0o1777);
          symlinkSync(join(dir, 'prod'), join(shared, 'hers'));
          lchownSync(join(shared, 'hers'), 1234, 1234);
          symlinkSync(join(dir, 'prod'), join(shared, 'roots'));
          expect((await examctlStep(['local', 'init', '--store', join(shared, 'roots')], dir)).code).toBe(0);
          for (const args of [
            ['local', 'init', '--force'],
            ['local', 'export', '--out', join(dir, 'out.json')],
          ]) {
            const { code, stderr } = await examctlStep([...args, '--store', join(shared, 'hers')], dir);
            expect([code, stderr]).toEqual([
              2,
              expect.stringContaining(
                `${shared}/hers is already there, owned by uid 1234, in a folder another user can write`,
              ),
            ]);
          }
        }),
    );
  },
);

describe('a folder others can write, above a place', () => {
  it("the user's own: chmod go-w; root's, which the user cannot change: a path outside it (trial33 F09)", () => {
    const context = { uid: 1002, home: '/home/u' };
    expect(entryProblem('/srv/mine', { uid: 1002, mode: 0o40775 }, context)).toBe(
      '/srv/mine is writable by group (mode 775); chmod go-w /srv/mine',
    );
    expect(entryProblem('/srv/team', { uid: 0, mode: 0o42775 }, context)).toBe(
      '/srv/team is writable by group (mode 2775); use a path outside it (a link in it is judged by it: name the place by its own path)',
    );
  });
});
