import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandName } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { ROOT } from '../support/cli.js';

/** A word of a command, whole: `show` in `runs list\|show`, not in `showcase` or `show-all`. */
function wordIn(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s|\`\\\\(,])${escaped}(?![a-z-])`).test(text);
}

/**
 * README.md's "Commands" table, written by hand, has a row for every runnable command of the registry
 * (src/cli/program.ts): `examctl <group>` in its first cell, and the command's word in the row (`runs
 * list\|show`, `synced ... adopt-schedules`) unless the cell says `examctl <group> ...`.
 */
describe("the README's table of commands", () => {
  it('has a row for every runnable command', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = /^## Commands\n([\s\S]*?)\n## /m.exec(readme);
    expect(section, 'README has a Commands section').not.toBeNull();
    const rows = section![1]!.split('\n').filter((line) => line.startsWith('| `examctl '));
    expect(rows.length).toBeGreaterThan(10);
    const missing = COMMANDS.filter((declaration) => declaration.options !== undefined)
      .filter(({ path: [group, name] }) => {
        return !rows.some((row) => {
          const cell = row.split(' | ')[0] ?? '';
          if (!wordIn(cell, `examctl ${group}`)) return false;
          return name === undefined || cell.includes(`examctl ${group} ...`) || wordIn(row, name);
        });
      })
      .map(commandName);
    expect(missing).toEqual([]);
  });
});
