import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

const USERS = fileURLToPath(new URL('../../fixtures/users.csv', import.meta.url));

describe('the send window', () => {
  it('a slow request does not hold back the others: sending waits for a free slot, the report keeps input order', async () => {
    await withTempDir(async (dir) => {
      let started = 0;
      let releaseFirst: (() => void) | undefined;
      const firstDone = new Promise<void>((resolve) => (releaseFirst = resolve));
      // If the pipeline waited for the oldest answer, the slow call would wait for calls that
      // never start: the test's own timeout ends it as a failure (no timer here decides a pass).
      // The second is the slow one: a remote run's first request goes alone (docs/runs.md, its start head).
      const api = {
        upsertUser: async (request: { ExternalId: string }) => {
          started += 1;
          if (started === 2) await firstDone;
          else if (started === 20) releaseFirst?.();
          return {
            status: 200,
            envelope: {
              Success: true,
              Errors: null,
              Content: { User: { ExternalId: request.ExternalId }, GroupErrors: [] },
            },
          };
        },
        close: async () => {},
      };
      const startedWhenFirstAnswered: number[] = [];
      void firstDone.then(() => startedWhenFirstAnswered.push(started));
      const { deps } = testDeps(dir, { openApi: async () => api as never }, { EXAMCTL_TOKEN: 'test-token' });
      const code = await runCli(
        [
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--yes',
          '--concurrency',
          '2',
          'user',
          'sync',
          '--file',
          USERS,
          '--report',
          'r.json',
        ],
        deps,
      );
      expect(code).toBe(0);
      expect(startedWhenFirstAnswered).toEqual([20]);
      const report = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8'));
      expect(report.items.map((item: { source: { line: number } }) => item.source.line)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 2),
      );
    });
  });
});
