import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { ROOT } from '../support/cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/** docs/store.md, "Files": the snapshot lines it shows are those `local init --seed fixtures/world.json` writes. */
describe('docs/store.md', () => {
  it("shows the demo world's snapshot lines as local init writes them, its crc included", async () => {
    const doc = readFileSync(join(ROOT, 'docs/store.md'), 'utf8');
    const block =
      /one more and last\nlines of `examctl local init --seed fixtures\/world\.json`[\s\S]*?```\n([\s\S]*?)```/.exec(
        doc,
      )?.[1];
    const shown = (block ?? '').trim().split('\n');
    expect(shown).toHaveLength(3);
    await withTempDir(async (dir) => {
      const { deps, stderr } = testDeps(dir);
      const code = await runCli(
        ['--store', join(dir, 'store'), 'local', 'init', '--seed', join(ROOT, 'fixtures/world.json')],
        deps,
      );
      expect(code, stderr.text).toBe(0);
      const lines = readFileSync(join(dir, 'store', 'snapshot-1.ndjson'), 'utf8')
        .trim()
        .split('\n');
      expect(lines[0]).toBe(shown[0]);
      expect(lines).toContain(shown[1]);
      expect(lines.at(-1)).toBe(shown[2]);
    });
  });
});
