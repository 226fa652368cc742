import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { withTempDir } from '../support/temp-dir.js';

/** The memory's summaries count in words (`1 collection`, never `1 collections`): synced export, import and show. */
describe('the sync memory counted in words', () => {
  it('one collection: export, import and show say "1 collection"', async () => {
    await withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      writeFileSync(join(dir, 'c.csv'), 'ExternalId,Title,Owner\nc1,Physics,scheduler\n');
      expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
      const added = await examctl(['collection', 'add', '--file', 'c.csv'], dir, env);
      expect(added.code, added.stderr).toBe(0);
      const exported = await examctl(['synced', 'export', '--out', 'm.json'], dir, env);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toMatch(/: 1 collection \(without --population: newest run \S+\)/);
      const imported = await examctl(['synced', 'import', 'm.json', '--force'], dir, env);
      expect(imported.stderr).toMatch(/: 1 collection \(without --population: newest run \S+\)/);
      const shown = await examctl(['synced', 'show'], dir, env);
      expect(shown.stdout).toMatch(/without --population: newest run \S+, 1 collection$/m);
    });
  });
});
