import { describe, expect, it } from 'vitest';
import { keptOptionNames } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { GLOBAL_OPTIONS } from '../../src/flags/global-options.js';
import type { Spec } from '../../src/flags/option-table.js';

/**
 * `runs resume` continues a run with the options its journal kept: those the command's
 * declaration marks `kept` (src/flags/option-table.ts). A flag of a resumable command that says
 * nothing would be silently dropped by a resume (a resumed --population run would feed the
 * memory as another population), so every flag of a resumable command, and every global flag,
 * says whether the journal keeps it or why not.
 */
function silent(specs: readonly Spec[]): string[] {
  return specs
    .filter(
      (spec) => spec.kept === undefined || (typeof spec.kept === 'object' && spec.kept.notKept.trim().length < 10),
    )
    .map((spec) => (spec.kind === 'option' ? spec.flags : spec.syntax));
}

describe('kept options', () => {
  it('every flag of a resumable command, and every global flag, is kept by the journal or says why not', () => {
    const resumable = COMMANDS.filter((command) => command.resume === 'rerun');
    expect(resumable.map((command) => command.path.join(' ')).sort()).toEqual([
      'collection add',
      'invigilators remove',
      'schedule push',
      'user sync',
    ]);
    expect(silent(GLOBAL_OPTIONS)).toEqual([]);
    for (const command of resumable) expect(silent(command.options ?? []), command.path.join(' ')).toEqual([]);
  });

  it('secrets and first-run checks are not kept; the target, input and nightly flags are', () => {
    const names = (path: string) => keptOptionNames(COMMANDS.find((command) => command.path.join(' ') === path)!).names;
    expect(names('schedule push')).not.toContain('pin');
    expect(names('schedule push')).not.toContain('pinFile');
    expect(names('schedule push')).toContain('reallyNewIds');
    expect(names('user sync')).toContain('reallyNewIds');
    expect(names('user sync')).not.toContain('requireMemory');
    expect(names('user sync')).not.toContain('json');
    expect(names('user sync')).toEqual(
      expect.arrayContaining([
        'target',
        'store',
        'baseUrl',
        'tokenFile',
        'profile',
        'report',
        'yes',
        'file',
        'population',
        'changedOnly',
        'disableMissing',
        'syncDir',
        'mapFile',
        'set',
      ]),
    );
    expect(names('invigilators remove')).toEqual(expect.arrayContaining(['scheduleExtId', 'userExtIds', 'file']));
  });
});
