import { mkdirSync, chmodSync, lchownSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plantedEntryProblem } from '../../src/system/trusted-place.js';
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
      for (const [mode, refused] of [[0o777, true], [0o1777, true], [0o775, true], [0o755, !root]] as const) {
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        symlinkSync(join(dir, 'victim.txt'), join(folder, 'report.csv'));
        if (root) lchownSync(join(folder, 'report.csv'), owner, owner);
        chmodSync(folder, mode);
        const problem = await plantedEntryProblem(join(folder, 'report.csv'), other);
        expect(problem !== undefined, `${mode.toString(8)}: ${problem}`).toBe(refused);
        if (refused) expect(problem).toContain(`${folder}/report.csv is already there, owned by uid ${owner}, in a folder another user can write`);
      }
      expect(await plantedEntryProblem(join(dir, 'f777', 'report.csv'), { uid: owner, home: dir })).toBeUndefined();
    }));

  it('a link of another user to a folder, on the path, is refused as at the name (trial23 f03)', () =>
    withTempDir(async (dir) => {
      const owner = root ? 1234 : process.getuid!();
      for (const [mode, refused] of [[0o777, true], [0o755, !root]] as const) {
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        symlinkSync(dir, join(folder, 'exports'));
        if (root) lchownSync(join(folder, 'exports'), owner, owner);
        chmodSync(folder, mode);
        const problem = await plantedEntryProblem(join(folder, 'exports', 'precious.csv'), { uid: 4242, home: dir });
        expect(problem, mode.toString(8)).toBe(refused ? `${folder}/exports is already there, owned by uid ${owner}, in a folder another user can write: choose another path` : undefined);
      }
    }));

  // trial6 1: a teammate's report in a 2775 team folder; root writing in a 755 workspace the host user owns.
  it.skipIf(!root)("leaves a plain file (replaced by a rename) and root's entries alone, but not a plain file in a sticky folder", () =>
    withTempDir(async (dir) => {
      for (const [mode, uid, as, refused] of [[0o2775, 1001, 1000, false], [0o755, 1000, 0, false], [0o1777, 1001, 1000, true]] as const) {
        // The sticky folder is root's, as /tmp: only the file's owner (or root) renames over it.
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        writeFileSync(join(folder, 'report.csv'), 'old');
        lchownSync(join(folder, 'report.csv'), uid, 1000);
        symlinkSync(join(dir, 'victim.txt'), join(folder, 'root.csv'));
        lchownSync(folder, mode & 0o1000 ? 0 : 1000, 1000);
        chmodSync(folder, mode);
        expect(await plantedEntryProblem(join(folder, 'report.csv'), { uid: as, home: dir }) !== undefined, mode.toString(8)).toBe(refused);
        expect(await plantedEntryProblem(join(folder, 'root.csv'), { uid: as, home: dir })).toBeUndefined();
        // trial23 f11: root's own plain file in a sticky folder is no more replaceable by another user's rename.
        writeFileSync(join(folder, 'roots.csv'), 'old');
        expect(await plantedEntryProblem(join(folder, 'roots.csv'), { uid: as, home: dir }) !== undefined, mode.toString(8)).toBe(refused);
      }
    }));
});
