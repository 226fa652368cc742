import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { examctl } from '../support/cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { onTarget } from '../support/target-flags.js';

/** `--out -` names no file; --out on stdout under --json would put two documents there (trial 6: 11). */
const USERS = 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n';

describe('an output named - or on stdout under --json', () => {
  it('--out -: exit 2, no file named -', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      expect(
        await runCli(['--store', 'store', 'user', 'sync', '--file', 'users.csv'], testDeps(dir, {}, env).deps),
      ).toBe(0);
      for (const command of [
        ['local', 'export'],
        ['synced', 'export'],
        ['template', 'users'],
      ]) {
        const io = testDeps(dir, {}, env);
        expect(await runCli(onTarget(['--store', 'store'], [...command, '--out', '-']), io.deps), io.stderr.text).toBe(
          2,
        );
        expectCoded(io.stderr.text, 'E2000', '--out -');
      }
      expect(existsSync(join(dir, '-'))).toBe(false);
    }));

  // Spawned: the process's own standard output (a pipe here) is the subject.
  it.skipIf(process.platform === 'win32')(
    '--json synced export --out /dev/stdout: exit 2, one document on stdout',
    () =>
      withTempDir(async (dir) => {
        writeFileSync(join(dir, 'users.csv'), USERS);
        expect((await examctl(['--store', 'store', 'user', 'sync', '--file', 'users.csv'], dir)).code).toBe(0);
        const run = await examctl(['--store', 'store', '--json', 'synced', 'export', '--out', '/dev/stdout'], dir);
        expect(run.code, run.stderr).toBe(2);
        expect(JSON.parse(run.stdout)).toMatchObject({
          error: { message: expect.stringContaining('--out /dev/stdout is stdout under --json') },
        });
        const plain = await examctl(['--store', 'store', 'synced', 'export', '--out', '/dev/stdout'], dir);
        expect(plain.code, plain.stderr).toBe(0);
        expect(JSON.parse(plain.stdout)).toMatchObject({ format: expect.any(String) });
      }),
  );
});
