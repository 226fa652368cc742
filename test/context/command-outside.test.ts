/**
 * The decisions a command's outside world makes before its behaviour runs (context/command-deps.ts,
 * context/file-input.ts): a removed working directory refused, a piped run journaled as `--file -`.
 */
import { describe, expect, it } from 'vitest';
import { refuseRemovedCwd, type CommandDeps } from '../../src/context/command-deps.js';
import { journaledOptions } from '../../src/context/file-input.js';
import { UsageError } from '../../src/system/errors.js';

describe('refuseRemovedCwd', () => {
  it('refuses a removed working directory (cwd ""), exit 2; takes any other', () => {
    expect(() => refuseRemovedCwd({ cwd: '' } as CommandDeps)).toThrow(UsageError);
    expect(() => refuseRemovedCwd({ cwd: '' } as CommandDeps)).toThrow(/current directory was removed/);
    expect(() => refuseRemovedCwd({ cwd: '/tmp' } as CommandDeps)).not.toThrow();
  });
});

describe('journaledOptions', () => {
  it('a piped --file is journaled as -; a regular file or stdin as given', () => {
    expect(journaledOptions({ file: 'fifo', yes: true }, { pipedFile: 'fifo' })).toEqual({ file: '-', yes: true });
    const options = { file: 'users.csv' };
    expect(journaledOptions(options, {})).toBe(options);
    expect(journaledOptions({ file: '-' }, { stdin: { path: '/tmp/x', remove: async () => {} } })).toEqual({
      file: '-',
    });
  });
});
