import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** With --json, config set-profile, use, remove and login print one document saying what they did, never the token (trial 6: 11). */
describe('--json profile commands', () => {
  it('config set-profile, login, config use and config remove --json: one document each, no token in it', () =>
    withTempDir(async (dir) => {
      const set = testDeps(dir);
      expect(await runCli(['--json', 'config', 'set-profile', 'prod', '--base-url', 'http://127.0.0.1:1'], set.deps), set.stderr.text).toBe(0);
      expect(JSON.parse(set.stdout.text)).toMatchObject({ done: 'created', profile: { name: 'prod', baseUrl: 'http://127.0.0.1:1', token: 'not set' } });
      const login = testDeps(dir, { stdin: Readable.from(['secret-token-77\n']) });
      expect(await runCli(['--json', 'login', '--profile', 'prod', '--with-token', '--no-verify'], login.deps), login.stderr.text).toBe(0);
      expect(JSON.parse(login.stdout.text)).toMatchObject({ done: 'token stored', checked: false, profile: { name: 'prod', token: 'set (file prod.token)' } });
      expect(login.stdout.text).not.toContain('secret-token-77');
      // config use and config remove: the same shape, the removed profile by its name (it is gone).
      const use = testDeps(dir);
      expect(await runCli(['config', 'use', 'prod', '--json'], use.deps), use.stderr.text).toBe(0);
      expect(JSON.parse(use.stdout.text)).toMatchObject({ done: 'default', profile: { name: 'prod', isDefault: true } });
      const remove = testDeps(dir);
      expect(await runCli(['config', 'remove', 'prod', '--json'], remove.deps), remove.stderr.text).toBe(0);
      expect(JSON.parse(remove.stdout.text)).toEqual({ done: 'removed', profile: 'prod' });
    }));
});
