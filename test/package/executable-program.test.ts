import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The one-file executable's program (scripts/build-release.mjs, buildProgram): its chunks, its
 * loader and the assets read at run time, nothing else beside them but packed.json (which file
 * holds each chunk, for the code cache's training runs); the CSV reader runs in the
 * program itself, so its package (csv-parse) is among the bundled packages the notices name. The
 * build id covers the files built in beside the code: another demo world or example, another id.
 */
describe("the executable's program", () => {
  it('is its chunks, the loader and its assets; the notices name the CSV reader bundled in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'examctl-program-'));
    try {
      const { buildProgram } = (await import(join(ROOT, 'scripts', 'build-release.mjs'))) as {
        buildProgram: (dir: string, licence: string, fixtures?: string) => Promise<string>;
      };
      await buildProgram(join(dir, 'a'), join(ROOT, 'LICENSE'));
      expect(readdirSync(join(dir, 'a')).sort()).toEqual([
        'THIRD-PARTY-NOTICES.md',
        'examctl.sha256',
        'fixtures',
        'main.cjs',
        'package.json',
        'packed.json',
        'program',
      ]);
      expect(readdirSync(join(dir, 'a', 'program')).filter((name) => name.endsWith('.mjs')).length).toBeGreaterThan(1);
      expect(readFileSync(join(dir, 'a', 'THIRD-PARTY-NOTICES.md'), 'utf8')).toContain('csv-parse');
      // The same code with another demo world and example: another build id (README: the same build is the same program).
      cpSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
      writeFileSync(
        join(dir, 'fixtures', 'users.csv'),
        readFileSync(join(ROOT, 'fixtures', 'users.csv'), 'utf8').replace('Amira', 'Amina'),
      );
      await buildProgram(join(dir, 'b'), join(ROOT, 'LICENSE'), join(dir, 'fixtures'));
      expect(readFileSync(join(dir, 'b', 'fixtures', 'users.csv'), 'utf8')).toContain('Amina');
      expect(readFileSync(join(dir, 'b', 'examctl.sha256'), 'utf8')).not.toBe(
        readFileSync(join(dir, 'a', 'examctl.sha256'), 'utf8'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
