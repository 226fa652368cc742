import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The one-file executable's CSV worker runs from its text (src/input/csv-rows-in-worker.ts), not
 * from a data: URL: a failure inside it names examctl-csv-worker.js in its stack, never the
 * worker's whole source (~90 KB per frame, as a data: URL printed with --debug).
 */
describe("the executable's CSV worker", () => {
  it('runs from its text; a failure inside it names examctl-csv-worker.js, not its source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'examctl-program-'));
    try {
      const { buildProgram } = (await import(join(ROOT, 'scripts', 'build-release.mjs'))) as { buildProgram: (dir: string, licence: string) => Promise<string> };
      await buildProgram(dir, join(ROOT, 'LICENSE'));
      const text = readFileSync(join(dir, 'csv-row-worker.cjs'), 'utf8');
      // No workerData: the worker fails at its first line that reads it.
      const worker = new Worker(text, { eval: true });
      const error = await new Promise<Error>((resolve) => worker.on('error', resolve));
      expect(error.stack).toMatch(/examctl-csv-worker\.js:\d+/);
      expect(error.stack!.length).toBeLessThan(2000);
      expect(error.stack).not.toContain('data:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
