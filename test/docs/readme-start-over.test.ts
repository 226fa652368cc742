import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { ROOT } from '../durability/helpers.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/** The README's start-over line, as written (issue 81, item 8): a bare rm -rf is exit 2; local init --force --seed starts over. */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') });
  const code = await runCli(argv, io.deps);
  return { code, stderr: io.stderr.text };
}

describe("the README's start-over line", () => {
  it('after rm -rf .examctl-store the next push is exit 2; local init --force --seed fixtures/world.json starts over', () =>
    withTempDir(async (dir) => {
      const push = ['schedule', 'push', '--file', join(ROOT, 'fixtures', 'sittings.csv')];
      expect((await cli(dir, push)).code).toBe(0);
      expect((await cli(dir, push)).code).toBe(1);
      rmSync(join(dir, '.examctl-store'), { recursive: true, force: true });
      const gone = await cli(dir, push);
      expect(gone.code).toBe(2);
      expect(gone.stderr).toContain('names one there');
      expect((await cli(dir, ['local', 'init', '--force', '--seed', join(ROOT, 'fixtures', 'world.json')])).code).toBe(
        0,
      );
      const again = await cli(dir, push);
      expect(again.code, again.stderr).toBe(0);
    }));
});
