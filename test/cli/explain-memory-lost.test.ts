import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * `examctl explain E2501` gives the ways back the refusal itself names (docs/sync.md, "When the
 * memory is lost"): restore it, or rebuild it from the last export fully synced; a night without
 * it is a knowing choice, never the first advice (it disables no leaver and prunes no link).
 */
describe('explain E2501', () => {
  it('names synced import, a state service and synced adopt, as the refusal does', () =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['explain', 'E2501'], io.deps)).toBe(0);
      const fix = io.stdout.text.slice(io.stdout.text.indexOf('Fix:'));
      expect(fix).toContain('examctl synced import');
      expect(fix).toContain('--sync-dir');
      expect(fix).toContain('examctl synced adopt');
      expect(fix).toContain('When the memory is lost');
    }));
});
