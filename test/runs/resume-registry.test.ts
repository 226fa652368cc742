import { describe, expect, it } from 'vitest';
import { declareCommand, NO_OPTIONS, type CommandDeclaration } from '../../src/cli/option-table.js';
import { COMMANDS } from '../../src/cli/program.js';
import { resumeEntry } from '../../src/cli/resume-registry.js';

/**
 * `runs resume` and `runs show` find a journaled command through its declaration (resume-registry.ts),
 * so the one place that can forget a command is the declaration itself: every command that writes
 * a run report (`takesReport`) says how its runs are read again, or why they cannot be resumed.
 */
function withoutResume(commands: readonly CommandDeclaration[]): string[] {
  return commands
    .filter((declaration) => declaration.takesReport === true)
    .filter((declaration) => {
      const support = declaration.resume;
      if (support === undefined) return true;
      return 'notResumable' in support ? support.notResumable.trim().length < 10 : typeof support.input !== 'function';
    })
    .map((declaration) => declaration.path.join(' '));
}

describe('resume registry (from the command declarations)', () => {
  it('every report-writing command can be resumed, or says why not', () => {
    expect(withoutResume(COMMANDS)).toEqual([]);
  });

  it('a new report-writing command without a resume entry is named (the check above would fail)', () => {
    const added = declareCommand({ path: ['roster', 'push'], description: 'a new record command', examples: [], options: NO_OPTIONS, load: async () => async () => 0, takesReport: true });
    expect(withoutResume([...COMMANDS, added])).toEqual(['roster push']);
    expect(resumeEntry('roster push', [...COMMANDS, added])).toEqual({ notResumable: 'its command declares no way to resume' });
  });

  it("the four record commands resume with their declaration's behaviour and read their input again with its builder", async () => {
    for (const name of ['user sync', 'schedule push', 'collection add', 'invigilators remove']) {
      const declaration = COMMANDS.find((each) => each.path.join(' ') === name)!;
      const entry = resumeEntry(name);
      expect('run' in entry && entry.run, name).toBe(declaration.load);
      expect(typeof ('input' in entry ? await entry.input() : undefined), name).toBe('function');
    }
  });

  it('runs show, runs resume and an unknown command name why they cannot be resumed', () => {
    expect(resumeEntry('runs show')).toEqual({ notResumable: expect.stringContaining('sends nothing') });
    expect(resumeEntry('runs resume')).toEqual({ notResumable: expect.stringContaining('resume that run again') });
    expect(resumeEntry('user frobnicate')).toEqual({ notResumable: 'this examctl has no command "user frobnicate"' });
  });
});
