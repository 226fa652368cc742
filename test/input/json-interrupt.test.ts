/**
 * Issue 81: Ctrl-C stops a long JSON text being read at once, whatever reads it. A map file of
 * 3 MB of escapes: the run signals itself at the parse's first piece (EXAMCTL_TEST_SIGNAL_AFTER,
 * a marker, not a time) and ends 130 before anything else was done: no store made, no run kept.
 */
import { describe, expect, it } from 'vitest';
import { readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { examctlStep } from '../support/in-process.js';
import { withTempDir } from '../cli/helpers.js';
import { YIELD_CHARS } from '../../src/system/json-scan.js';

describe('Ctrl-C during a long JSON parse', () => {
  it('a map file: exit 130 (E1300) at the marker, nothing made or sent', async () => {
    await withTempDir(async (dir) => {
      const map = join(dir, 'map.json');
      await writeFile(map, JSON.stringify({ _note: '\\'.repeat(YIELD_CHARS + YIELD_CHARS / 2) }));
      await writeFile(join(dir, 'u.csv'), 'ExternalId,FirstName,LastName,Email\ne1,A,B,e1@example.test\n');
      const runs = join(dir, 'runs');
      const argv = ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'u.csv'];
      const run = await examctlStep([...argv, '--map-file', map], dir, {
        EXAMCTL_TEST_SIGNAL_AFTER: 'parse:1:SIGINT',
        EXAMCTL_RUNS_DIR: runs,
      });
      expect(run.code).toBe(130);
      expect(run.stderr).toContain('E1300');
      expect(run.stderr).toMatch(/of 3,\d{3},\d{3} characters read/);
      expect(existsSync(join(dir, 'store'))).toBe(false);
      expect(existsSync(runs) ? await readdir(runs) : []).toEqual([]);
    });
  });
});
