import { describe, expect, it } from 'vitest';
import { commandName, declareCommand, type CommandDeclaration } from '../../src/cli/command-declaration.js';
import { COMMAND_BEHAVIOURS, COMMANDS } from '../../src/cli/program.js';
import { resumeEntry } from '../../src/cli/resume-registry.js';

/**
 * `runs resume` and `runs show` find a journaled command through its declaration (resume-registry.ts),
 * so the one place that can forget a command is the declaration itself: every command that writes
 * a run report (`takes` holds `--report`) says how its runs are read again, or why they cannot be resumed.
 */
function withoutResume(commands: readonly CommandDeclaration[]): string[] {
  return commands
    .filter((declaration) => declaration.takes?.includes('--report'))
    .filter((declaration) => {
      const support = declaration.resume;
      if (support === undefined) return true;
      return support === 'rerun' ? false : support.notResumable.trim().length < 10;
    })
    .map((declaration) => declaration.path.join(' '));
}

const registry = { behaviours: COMMAND_BEHAVIOURS, commands: COMMANDS };

describe('resume registry (from the command declarations)', () => {
  it('every report-writing command can be resumed, or says why not', () => {
    expect(withoutResume(COMMANDS)).toEqual([]);
  });

  it('a new report-writing command without a resume entry is named (the check above would fail)', () => {
    const added = declareCommand({
      path: ['roster', 'push'],
      description: 'a new record command',
      examples: [],
      options: [],
      takes: ['--report'],
    });
    const behaviours = new Map([...COMMAND_BEHAVIOURS, ['roster push', { run: async () => async () => 0 }]]);
    expect(withoutResume([...COMMANDS, added])).toEqual(['roster push']);
    expect(resumeEntry('roster push', { behaviours, commands: [...COMMANDS, added] })).toEqual({
      notResumable: 'its command declares no way to resume',
    });
  });

  it("every command declared 'rerun' (the four record commands among them) resumes with its behaviour, reads its input again with its builder, and keeps its declaration's options", async () => {
    const rerun = COMMANDS.filter((declaration) => declaration.resume === 'rerun').map(commandName);
    expect(rerun).toEqual(
      expect.arrayContaining(['user sync', 'schedule push', 'collection add', 'invigilators remove']),
    );
    for (const name of rerun) {
      const entry = resumeEntry(name, registry);
      expect('run' in entry && entry.run, name).toBe(COMMAND_BEHAVIOURS.get(name)!.run);
      expect(typeof ('input' in entry ? await entry.input() : undefined), name).toBe('function');
      expect('keptOptions' in entry && entry.keptOptions.names, name).toEqual(
        expect.arrayContaining(['file', 'target', 'baseUrl']),
      );
    }
  });

  it('runs show, runs resume and an unknown command name why they cannot be resumed', () => {
    expect(resumeEntry('runs show', registry)).toEqual({
      notResumable: expect.stringContaining('sends nothing'),
    });
    expect(resumeEntry('runs resume', registry)).toEqual({
      notResumable: expect.stringContaining('resume that run again'),
    });
    expect(resumeEntry('user frobnicate', registry)).toEqual({
      notResumable: 'this examctl has no command "user frobnicate"',
    });
  });
});
