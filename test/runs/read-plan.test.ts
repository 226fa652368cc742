import { execFileSync } from 'node:child_process';
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PLAN_BYTES, readPlan } from '../../src/runs/plan-document.js';
import { withTempDir } from '../cli/helpers.js';

/** readPlan reads one handle, checked regular and bounded before a byte is read (docs/plan.md, "Refusals"). */
describe('readPlan', () => {
  it('refuses with E2600 a directory, a FIFO and one larger than a plan can be; a missing file with E2101', () =>
    withTempDir(async (dir) => {
      const refused = async (path: string, code = 'E2600') => {
        const error = await readPlan(path).then(
          () => undefined,
          (thrown: unknown) => thrown as { code?: string; message: string },
        );
        expect(error?.code).toBe(code);
        expect(error?.message).toContain(path);
        return error!.message;
      };
      await mkdir(join(dir, 'plan.d'));
      expect(await refused(join(dir, 'plan.d'))).toContain('not a file');
      if (process.platform !== 'win32') {
        execFileSync('mkfifo', [join(dir, 'plan.fifo')]);
        // Opened without blocking, judged by its handle: refused, never waited on.
        expect(await refused(join(dir, 'plan.fifo'))).toContain('not a file');
      }
      expect(await refused(join(dir, 'missing.json'), 'E2101')).toContain('cannot read the plan');
      const big = join(dir, 'big.json');
      // Sparse: refused by its size, unread.
      await writeFile(big, '');
      await truncate(big, MAX_PLAN_BYTES + 1);
      expect(await refused(big)).toContain(`(${MAX_PLAN_BYTES} bytes)`);
      // A link the user names is followed: the file it names is judged (here: not a plan).
      await writeFile(join(dir, 'text.json'), '{}\n');
      await symlink(join(dir, 'text.json'), join(dir, 'linked.json'));
      expect(await refused(join(dir, 'linked.json'))).toContain('no checksum');
    }));
});
