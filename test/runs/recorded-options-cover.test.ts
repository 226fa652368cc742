import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/program.js';
import { RECORDED_OPTIONS } from '../../src/runs/recorded-options.js';

/**
 * `runs resume` continues a run with the options its journal kept (src/runs/recorded-options.ts,
 * an allow-list). A flag of a resumable command missing from it is silently dropped by the resume
 * (found: --population, whose resumed run fed the memory as another population). Every flag of a
 * resumable command is either recorded or named here with the reason it is not.
 */
const NOT_RECORDED: Readonly<Record<string, string>> = {
  pin: 'a secret: its SHA-256 is recorded, and runs resume asks for --pin again',
  pinFile: 'where the PIN came from: runs resume asks for it again',
  requireMemory: 'a check of the first run (a memory must exist); a resume has the memory that run started',
};

function attributeOf(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? '';
  const name = long.startsWith('no-') ? long.slice(3) : long;
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

describe('recorded options', () => {
  it('every flag of a resumable command is recorded for runs resume, or named as deliberately not', () => {
    const resumable = COMMANDS.filter((command) => command.resume !== undefined && 'input' in command.resume);
    expect(resumable.map((command) => command.path.join(' ')).sort()).toEqual(['collection add', 'invigilators remove', 'schedule push', 'user sync']);
    const missing: string[] = [];
    for (const command of resumable) {
      for (const spec of command.options ?? []) {
        if (spec.kind !== 'option') continue;
        const attribute = attributeOf(spec.flags);
        if (!RECORDED_OPTIONS.includes(attribute) && NOT_RECORDED[attribute] === undefined) missing.push(`${command.path.join(' ')} ${spec.flags}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
