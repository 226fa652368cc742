import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

// Issue 27 (5): CSV that examctl writes with no input to follow starts with a UTF-8 BOM, as
// Excel's own "CSV UTF-8" does, so Excel on Windows shows "Chloé" and not "ChloÃ©"; --no-bom leaves it out.

describe('a UTF-8 BOM on CSV written for a spreadsheet', () => {
  it('template -o csv, schedule links -o csv and review-session show -o csv start with the BOM; --no-bom leaves it out', async () => {
    await inTempDir(async (dir) => {
      const store = join(dir, 'store');
      expect((await examctl(['local', 'init', '--store', store], dir)).code).toBe(0);
      const commands = [
        ['template', 'users'],
        ['schedule', 'links', 'S-FUTURE', '-o', 'csv', '--store', store],
        ['review-session', 'show', 'RS-MATH1-OCT', '-o', 'csv', '--store', store],
      ];
      for (const args of commands) {
        const withBom = await examctl(args, dir);
        expect(withBom.code).toBe(0);
        expect(withBom.stdout.charCodeAt(0)).toBe(0xfeff);
        const without = await examctl([...args, '--no-bom'], dir);
        expect(without.code).toBe(0);
        expect(without.stdout).toBe(withBom.stdout.slice(1));
      }
    });
  });
});
