import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** A plan path that names no file is a path to check (E2101), not a plan to make again (E2600: docs/errors.md). */
describe('examctl apply of a path with no file', () => {
  it('is E2101 naming the path, on stderr and in --json; nothing was sent', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const text = testDeps(dir, {}, env);
      expect(await runCli(['--store', join(dir, 'store'), 'apply', 'tonight.plan.json'], text.deps)).toBe(2);
      expect(text.stderr.text).toMatch(/^examctl: E2101: .*tonight\.plan\.json/m);
      const json = testDeps(dir, {}, env);
      expect(await runCli(['--store', join(dir, 'store'), 'apply', 'tonight.plan.json', '--json'], json.deps)).toBe(2);
      const { error } = JSON.parse(json.stdout.text);
      // The kind and file every E2101 carries (docs/ci.md: `input-file`, with `file`), as `user sync --file` gives them.
      expect(error).toMatchObject({ code: 'E2101', exitCode: 2, kind: 'input-file', file: 'tonight.plan.json' });
      expect(error.message).toContain('tonight.plan.json');
    }));
});
