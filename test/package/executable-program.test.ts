import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The one-file executable's program (scripts/build-release.mjs, buildProgram): its chunks, its
 * loader and the assets read at run time, nothing else beside them but packed.json (which file
 * holds each chunk, for the code cache's training runs); the CSV reader runs in the
 * program itself, so its package (csv-parse) is among the bundled packages the notices name.
 */
describe("the executable's program", () => {
  it('is its chunks, the loader and its assets; the notices name the CSV reader bundled in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'examctl-program-'));
    try {
      const { buildProgram } = (await import(join(ROOT, 'scripts', 'build-release.mjs'))) as { buildProgram: (dir: string, licence: string) => Promise<string> };
      await buildProgram(dir, join(ROOT, 'LICENSE'));
      expect(readdirSync(dir).sort()).toEqual(['THIRD-PARTY-NOTICES.md', 'examctl.sha256', 'main.cjs', 'package.json', 'packed.json', 'program']);
      expect(readdirSync(join(dir, 'program')).filter((name) => name.endsWith('.mjs')).length).toBeGreaterThan(1);
      expect(readFileSync(join(dir, 'THIRD-PARTY-NOTICES.md'), 'utf8')).toContain('csv-parse');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
