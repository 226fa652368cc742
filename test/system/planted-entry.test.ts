import { mkdirSync, chmodSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plantedEntryProblem } from '../../src/system/trusted-place.js';
import { withTempDir } from '../support/temp-dir.js';

/** An output name another user planted (a link, a FIFO) is refused in every folder others can write, not only sticky ones (trial 5: f03). */
describe.skipIf(process.platform === 'win32')('an entry another user planted at an output name', () => {
  it('is refused in any folder others can write (0777 team folder, sticky or not), never in one only its owner writes', () =>
    withTempDir(async (dir) => {
      // Our own entries, judged as another user (uid 4242) would see them: planted by someone else.
      const other = { uid: 4242, home: dir };
      // A folder of root's (or, as another user, of ours) that only its owner writes: not refused as root.
      for (const [mode, refused] of [[0o777, true], [0o1777, true], [0o775, true], [0o755, process.getuid!() !== 0]] as const) {
        const folder = join(dir, `f${mode.toString(8)}`);
        mkdirSync(folder);
        symlinkSync(join(dir, 'victim.txt'), join(folder, 'report.csv'));
        chmodSync(folder, mode);
        const problem = await plantedEntryProblem(join(folder, 'report.csv'), other);
        expect(problem !== undefined, `${mode.toString(8)}: ${problem}`).toBe(refused);
        if (refused) expect(problem).toContain(`${folder}/report.csv is already there, owned by uid ${process.getuid!()}, not by you, in a folder others can write`);
      }
      expect(await plantedEntryProblem(join(dir, 'f777', 'report.csv'), { uid: process.getuid!(), home: dir })).toBeUndefined();
    }));
});
