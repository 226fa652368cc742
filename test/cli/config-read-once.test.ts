import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { openTargetApi } from '../../src/context/target.js';
import type { ApiFactory } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from './helpers.js';

/**
 * A run reads the config file once (CommandDeps.config): its target, its input's settings, its
 * --strict and its journal all come from one version, also when the file is replaced under it.
 */

const WORLD = resolve(__dirname, '../../fixtures/world.json');
/** w-1's PhoneNumber warns (9003): a strict profile fails it, another sends it. */
const USERS =
  'ExternalId,FirstName,LastName,Email,Role,PhoneNumber\nw-1,Ann,Lee,w1@example.test,Candidate,1.23457E+18\n';

const configWith = (strict: boolean) =>
  JSON.stringify({ version: 1, defaultProfile: 'p', profiles: { p: { defaults: { strict } } } });

describe('the config file, read once per run', () => {
  it('a config file replaced when the target opens (after the target and input were read) does not change the run', async () => {
    await withTempDir(async (dir) => {
      const configDir = join(dir, 'config');
      await mkdir(configDir, { mode: 0o700 });
      const file = join(configDir, 'config.json');
      await writeFile(file, configWith(false), { mode: 0o600 });
      const env = { EXAMCTL_CONFIG_DIR: configDir, EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const store = ['--store', join(dir, 'store')];
      expect(await runCli(['local', 'init', ...store, '--seed', WORLD], testDeps(dir, {}, env).deps)).toBe(0);
      await writeFile(join(dir, 'users.csv'), USERS);
      // The marker: the target being opened. The file is replaced as an editor saves it, by a rename.
      let replaced = 0;
      const openApi: ApiFactory = async (target, options) => {
        await writeFile(`${file}.new`, configWith(true), { mode: 0o600 });
        await rename(`${file}.new`, file);
        replaced++;
        return openTargetApi(target, options);
      };
      const io = testDeps(dir, { openApi }, env);
      const code = await runCli(['--json', ...store, 'user', 'sync', '--file', 'users.csv'], io.deps);
      expect(replaced).toBe(1);
      const report = JSON.parse(io.stdout.text) as { items: { id: string; status: string }[]; profile?: unknown };
      // Read with the file as the run began (strict: false): the warned row is sent.
      expect(code).toBe(0);
      expect(report.items).toMatchObject([{ id: 'w-1', status: 'ok' }]);
      // The next run reads the file as it is now: the same row fails (9003).
      const next = testDeps(dir, {}, env);
      expect(await runCli(['--json', ...store, 'user', 'sync', '--file', 'users.csv'], next.deps)).toBe(1);
      expect(JSON.parse(next.stdout.text).items).toMatchObject([{ id: 'w-1', status: 'failed' }]);
    });
  });
});
