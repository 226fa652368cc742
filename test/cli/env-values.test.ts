import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { UsageError } from '../../src/system/errors.js';
import { wholeMillisecondsFromEnv } from '../../src/system/env-values.js';
import { lockTimeoutFromEnv } from '../../src/system/lock.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

describe('environment variables in milliseconds', () => {
  it('reads a whole number, spaces around ignored; unset or blank is undefined', () => {
    expect(wholeMillisecondsFromEnv({ X_MS: '250' }, 'X_MS')).toBe(250);
    expect(wholeMillisecondsFromEnv({ X_MS: ' 0 ' }, 'X_MS')).toBe(0);
    expect(wholeMillisecondsFromEnv({}, 'X_MS')).toBeUndefined();
    expect(wholeMillisecondsFromEnv({ X_MS: '  ' }, 'X_MS')).toBeUndefined();
  });

  it.each(['soon', '-1', '1.5', '1e3', '0x10', '10s'])('refuses %j as a usage error naming the variable', (raw) => {
    expect(() => wholeMillisecondsFromEnv({ X_MS: raw }, 'X_MS')).toThrow(UsageError);
    expect(() => wholeMillisecondsFromEnv({ X_MS: raw }, 'X_MS')).toThrow(
      `X_MS must be a whole number of milliseconds, got ${JSON.stringify(raw)}`,
    );
  });

  it('EXAMCTL_LOCK_TIMEOUT_MS and EXAMCTL_STOP_GRACE_MS are refused in the same words', async () => {
    expect(() => lockTimeoutFromEnv({ EXAMCTL_LOCK_TIMEOUT_MS: '1e3' })).toThrow(
      'EXAMCTL_LOCK_TIMEOUT_MS must be a whole number of milliseconds, got "1e3"',
    );
  });

  it('a bad EXAMCTL_STOP_GRACE_MS stops a remote run before anything is sent (exit 2)', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName\nu-1,Ann,Lee\n');
      // Port 9 on loopback: were anything sent, the run would end 3 (target unusable), not 2.
      const io = testDeps(
        dir,
        {},
        { EXAMCTL_TOKEN: 't', EXAMCTL_STOP_GRACE_MS: '10s', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const code = await runCli(
        ['--base-url', 'http://127.0.0.1:9', '--yes', 'user', 'sync', '--file', 'users.csv'],
        io.deps,
      );
      expectCoded(io.stderr.text, 'E2000', 'EXAMCTL_STOP_GRACE_MS', '"10s"');
      expect(code).toBe(2);
    });
  });
});
