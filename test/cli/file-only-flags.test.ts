import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * user sync without --file prompts for one user: a flag only a file run reads is refused (exit 2,
 * naming it, nothing made), never silently dropped (docs/cli.md, "Global flags").
 */
describe('user sync: a file run flag given without --file', () => {
  it.each([
    [['--max-disable', '5'], '--max-disable'],
    [['--allow-disable-recent'], '--allow-disable-recent'],
    [['--max-prune', '10%'], '--max-prune'],
    [['--changed-only'], '--changed-only'],
    [['--only-new'], '--only-new'],
  ])('%j is exit 2 naming %s', (flags, named) =>
    withTempDir(async (dir) => {
      const io = testDeps(dir);
      expect(await runCli(['user', 'sync', '--store', 'store', '--no-input', ...flags], io.deps)).toBe(2);
      expect(io.stderr.text).toContain(`${named} needs --file`);
      expect(readdirSync(dir)).not.toContain('store');
    }),
  );
});
