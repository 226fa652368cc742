/**
 * A working directory removed under examctl (a cron job in a replaced deploy directory): every
 * command refuses in one line, exit 2, nothing sent; help and --version still answer (main.ts,
 * command-tree.ts; docs/cli.md, "Exit status").
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { BIN } from '../support/cli.js';
import { childEnv } from '../support/child-env.js';
import { testDeps, withTempDir } from './helpers.js';

const REFUSAL =
  'examctl: E2000: the current directory was removed (or cannot be read): cd to one that exists and run again\n';

describe('a removed working directory', () => {
  it('in-process (cwd ""): a command refuses, exit 2; help answers', async () => {
    const refused = testDeps('');
    expect(await runCli(['runs', 'list'], refused.deps)).toBe(2);
    expect(refused.stderr.text).toBe(REFUSAL);
    for (const argv of [['--help'], ['help', 'environment'], ['user', 'sync', '--help']])
      expect(await runCli(argv, testDeps('').deps)).toBe(0);
  });

  it.skipIf(process.platform === 'win32')(
    'bin/examctl started there: --version answers, a command says so in one line, exit 2 (not 70, no "reinstall")',
    () =>
      withTempDir(async (dir) => {
        const run = (...args: string[]) => {
          const gone = join(dir, `gone-${args.length}`);
          mkdirSync(gone);
          const script = 'cd "$1" && rmdir "$1" && shift && exec "$@"';
          return spawnSync('/bin/sh', ['-c', script, 'sh', gone, process.execPath, BIN, ...args], {
            env: childEnv(dir),
            encoding: 'utf8',
          });
        };
        const version = run('--version');
        expect(version.status, version.stderr).toBe(0);
        expect(version.stdout).toMatch(/^examctl /);
        const list = run('runs', 'list');
        expect([list.status, list.stderr]).toEqual([2, REFUSAL]);
      }),
  );
});
