import { describe, expect, it } from 'vitest';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { askPin, givenPin, typedPin } from '../../src/context/pin-source.js';
import { ExitCode, UsageError } from '../../src/system/errors.js';
import { testDeps, withTempDir } from './helpers.js';

describe('givenPin', () => {
  it.skipIf(process.platform === 'win32')(
    'reads --pin-file, warning once on stderr when group or others can read it',
    async () => {
      await withTempDir(async (dir) => {
        await writeFile(join(dir, 'pin.txt'), '4821\n');
        // Set outright: a umask could take the mode's group and other bits away.
        await chmod(join(dir, 'pin.txt'), 0o644);
        const io = testDeps(dir);
        expect(await givenPin({ pinFile: 'pin.txt' }, io.deps)).toBe('4821');
        expect(io.stderr.text).toBe(
          'warning: --pin-file: pin.txt is readable by group or others (mode 644); consider chmod 600 pin.txt\n',
        );
        await writeFile(join(dir, 'own.txt'), '4821\n', { mode: 0o600 });
        const quiet = testDeps(dir);
        expect(await givenPin({ pinFile: 'own.txt' }, quiet.deps)).toBe('4821');
        expect(quiet.stderr.text).toBe('');
      });
    },
  );
});

/** What schedule push and synced adopt-schedules give schedule-input's --pin field flag: a typed PIN only. */
describe('typedPin', () => {
  it('a typed PIN fills the field flag; EXAMCTL_PIN is the PIN but leaves the field to the --schedule file', async () => {
    const deps = testDeps('/', { env: { EXAMCTL_PIN: '1111' } }).deps;
    expect(await typedPin({ pin: '4821' }, deps)).toEqual({ pin: '4821', typed: '--pin', pinField: '4821' });
    expect(await typedPin({}, deps)).toEqual({ pin: '1111', typed: undefined, pinField: undefined });
  });
});

/** The masked PIN prompt (src/context/pin-source.ts): asked only where a person can answer, a blank answer refused. */
describe('askPin', () => {
  const withAnswer = (answer: string, asked: string[], overrides: Partial<CommandDeps> = {}) =>
    testDeps('/', { isTTY: true, askSecret: async (message) => (asked.push(message), answer), ...overrides }).deps;

  it('returns the trimmed answer, and asks nobody without a terminal or with --no-input', async () => {
    const asked: string[] = [];
    expect(await askPin('run 7 was started with a PIN', {}, withAnswer(' 4821\n', asked))).toBe('4821');
    expect(asked).toEqual(['run 7 was started with a PIN: PIN']);
    expect(await askPin('why', {}, withAnswer('4821', asked, { isTTY: false }))).toBeUndefined();
    expect(await askPin('why', { input: false }, withAnswer('4821', asked))).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  it('refuses a blank answer: exit 2, nothing sent', async () => {
    const refused = await askPin('why', {}, withAnswer('  ', [])).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).exitCode).toBe(ExitCode.Usage);
    expect((refused as UsageError).code).toBe('E2000');
    expect((refused as UsageError).message).toContain('PIN');
  });
});
