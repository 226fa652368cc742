/**
 * What `apply` and `runs resume` decide before the command runs again (pipeline/apply-run.ts,
 * pipeline/resume-run.ts), without a run: the options and directory it runs with, the file its rows name,
 * what cannot run again, what is said.
 */
import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { applyFlags, applyRunOptions, refuseUnappliable } from '../../src/pipeline/apply-run.js';
import { nothingToResume, resumedRun, storeNotUsedLine } from '../../src/pipeline/resume-run.js';
import type { OpenedResume } from '../../src/runs/resume-plan.js';
import { NothingToResumeError } from '../../src/runs/run-errors.js';
import { UsageError } from '../../src/system/errors.js';
import type { CommandDeps } from '../../src/context/command-deps.js';

describe('apply', () => {
  it("apply's own paths are read where apply was typed; unset flags are not laid over the plan's", () => {
    const flags = applyFlags({ store: 's', report: 'r.csv', file: 'f.csv', json: undefined, yes: true }, '/here');
    expect(flags).toEqual({
      store: resolve('/here', 's'),
      report: resolve('/here', 'r.csv'),
      file: 'f.csv',
      yes: true,
    });
  });

  it('runs never asking, reading the kept copy under the name the dry run read', () => {
    const plan = { options: { file: 'users.csv', yes: false, store: '/s' } };
    const copied = applyRunOptions(plan, { json: true }, { file: '/plans/p/file-users.csv' });
    expect(copied.runOptions).toEqual({ file: '/plans/p/file-users.csv', yes: true, store: '/s', json: true });
    expect(copied.file).toBe('users.csv');
    expect(copied.fileDeps).toEqual({ pipedFile: 'users.csv', stdinFile: '/plans/p/file-users.csv' });
    const none = applyRunOptions({ options: { ids: 'a' } }, {}, {});
    expect(none).toEqual({ runOptions: { ids: 'a', yes: true }, fileDeps: {} });
  });

  it('a plan of a command that cannot run again is exit 2', () => {
    expect(() => refuseUnappliable({ notResumable: 'why' }, { command: 'x y' }, 'p.json')).toThrow(UsageError);
    expect(() => refuseUnappliable({ run: 1 }, { command: 'x y' }, 'p.json')).not.toThrow();
  });
});

describe('runs resume', () => {
  const opened = (options: Record<string, unknown>, input: OpenedResume['record']['header']['input']) =>
    ({ record: { header: { options, input } } }) as unknown as OpenedResume;

  it('runs from the directory the run started in, its input under the name its rows give it', () => {
    const named = resumedRun(
      opened({ cwd: '/then' }, { path: '/copy', size: 1, sha256: 'x', name: 'u.csv' }),
      {},
      false,
      '/now',
    );
    expect(named).toEqual({
      options: { file: 'u.csv' },
      cwd: '/then',
      fileDeps: { pipedFile: 'u.csv', stdinFile: '/copy' },
    });
    const over = resumedRun(opened({}, null), { file: 'a.csv' }, true, '/now');
    expect(over).toEqual({ options: { file: 'a.csv', allowOldFile: true }, cwd: '/now', fileDeps: {} });
  });

  it('--store is said not used', () => {
    expect(storeNotUsedLine({ store: '/s' })).toContain('--store');
    expect(storeNotUsedLine({})).toBeUndefined();
  });

  it("nothing to resume: said; a finished run named is returned for its report; --json's document otherwise", async () => {
    const written: string[] = [];
    const deps = {
      stderr: { write: (text: string) => void written.push(text) },
      stdout: { write: (text: string) => void written.push(text) },
    } as unknown as CommandDeps;
    expect(await nothingToResume(new NothingToResumeError('done', 'r1'), true, deps)).toBe('r1');
    expect(written).toHaveLength(1);
    expect(await nothingToResume(new NothingToResumeError('none'), true, deps)).toBeUndefined();
    expect(JSON.parse(written.at(-1)!)).toEqual({ run: null, resumed: false, reason: 'none' });
    const other = new Error('x');
    await expect(nothingToResume(other, false, deps)).rejects.toBe(other);
  });
});
