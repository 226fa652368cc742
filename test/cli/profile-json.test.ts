import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { StoreLock } from '../../src/system/lock.js';

/** With --json, config set-profile, use, remove and login print one document saying what they did, never the token (trial 6: 11). */
describe('--json profile commands', () => {
  it('config set-profile, login, config use and config remove --json: one document each, no token in it', () =>
    withTempDir(async (dir) => {
      const set = testDeps(dir);
      expect(
        await runCli(['--json', 'config', 'set-profile', 'prod', '--base-url', 'http://127.0.0.1:1'], set.deps),
        set.stderr.text,
      ).toBe(0);
      expect(JSON.parse(set.stdout.text)).toMatchObject({
        done: 'created',
        profile: { name: 'prod', baseUrl: 'http://127.0.0.1:1', token: 'not set' },
      });
      const login = testDeps(dir, { stdin: Readable.from(['secret-token-77\n']) });
      expect(
        await runCli(['--json', 'login', '--profile', 'prod', '--with-token', '--no-verify'], login.deps),
        login.stderr.text,
      ).toBe(0);
      expect(JSON.parse(login.stdout.text)).toMatchObject({
        done: 'token stored',
        checked: false,
        profile: { name: 'prod', token: 'set (file prod.token)' },
      });
      expect(login.stdout.text).not.toContain('secret-token-77');
      // config use and config remove: the same shape, the removed profile by its name (it is gone).
      const use = testDeps(dir);
      expect(await runCli(['config', 'use', 'prod', '--json'], use.deps), use.stderr.text).toBe(0);
      expect(JSON.parse(use.stdout.text)).toMatchObject({
        done: 'default',
        profile: { name: 'prod', isDefault: true },
      });
      const remove = testDeps(dir);
      expect(await runCli(['config', 'remove', 'prod', '--json'], remove.deps), remove.stderr.text).toBe(0);
      expect(JSON.parse(remove.stdout.text)).toEqual({ done: 'removed', profile: 'prod' });
    }));
});

/** The config file is read, changed and written under the config directory's LOCK (trial 11: F05). */
describe('profile commands at once on one config directory', () => {
  it('ten set-profile, then use and remove at once with a set-profile: every change kept', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_CONFIG_DIR: join(dir, 'cfg') };
      const run = async (args: string[]) => {
        const io = testDeps(dir, {}, env);
        expect(await runCli(args, io.deps), io.stderr.text).toBe(0);
      };
      const names = Array.from({ length: 10 }, (_, n) => `campus${n}`);
      await Promise.all(
        names.map((name, n) => run(['config', 'set-profile', name, '--base-url', `http://127.0.0.1:${n + 1}`])),
      );
      await Promise.all([
        run(['config', 'use', 'campus5']),
        run(['config', 'remove', 'campus0']),
        run(['config', 'set-profile', 'extra', '--base-url', 'http://127.0.0.1:99']),
      ]);
      const list = testDeps(dir, {}, env);
      expect(await runCli(['config', 'list', '--json'], list.deps)).toBe(0);
      const profiles = JSON.parse(list.stdout.text) as { name: string; isDefault: boolean }[];
      expect(profiles.map((profile) => profile.name).sort()).toEqual([...names.slice(1), 'extra'].sort());
      expect(profiles.find((profile) => profile.isDefault)?.name).toBe('campus5');
    }));

  it('a lock held past EXAMCTL_LOCK_TIMEOUT_MS: exit 3, nothing written; --json says kind store-locked (docs/ci.md: every lock)', () =>
    withTempDir(async (dir) => {
      const cfg = join(dir, 'cfg');
      mkdirSync(cfg, { mode: 0o700 });
      const held = new StoreLock(cfg, 0);
      await held.acquire();
      const io = testDeps(dir, {}, { EXAMCTL_CONFIG_DIR: cfg, EXAMCTL_LOCK_TIMEOUT_MS: '0' });
      expect(await runCli(['config', 'set-profile', 'late', '--base-url', 'http://127.0.0.1:1'], io.deps)).toBe(3);
      expectCoded(io.stderr.text, 'E3020', cfg, `pid ${process.pid}`);
      expect(existsSync(join(cfg, 'config.json'))).toBe(false);
      const json = testDeps(dir, {}, { EXAMCTL_CONFIG_DIR: cfg, EXAMCTL_LOCK_TIMEOUT_MS: '0' });
      expect(
        await runCli(['config', 'set-profile', 'late', '--base-url', 'http://127.0.0.1:1', '--json'], json.deps),
      ).toBe(3);
      expect(JSON.parse(json.stdout.text).error).toMatchObject({
        kind: 'store-locked',
        message: expect.stringContaining('the config directory'),
      });
      await held.release();
    }));

  it('login whose profile cannot be saved (the config locked): exit 3, the old token file as it was, no new one (trial40)', () =>
    withTempDir(async (dir) => {
      const cfg = join(dir, 'cfg');
      const env = { EXAMCTL_CONFIG_DIR: cfg, EXAMCTL_LOCK_TIMEOUT_MS: '0' };
      const first = testDeps(dir, { stdin: Readable.from(['old-token-1\n']) }, env);
      expect(
        await runCli(
          ['login', '--profile', 'prod', '--base-url', 'http://127.0.0.1:1', '--with-token', '--no-verify'],
          first.deps,
        ),
        first.stderr.text,
      ).toBe(0);
      const held = new StoreLock(cfg, 0);
      await held.acquire();
      for (const name of ['prod', 'fresh']) {
        const io = testDeps(dir, { stdin: Readable.from(['new-token-2\n']) }, env);
        expect(
          await runCli(
            ['login', '--profile', name, '--base-url', 'http://127.0.0.1:1', '--with-token', '--no-verify'],
            io.deps,
          ),
          io.stderr.text,
        ).toBe(3);
      }
      await held.release();
      expect(readFileSync(join(cfg, 'prod.token'), 'utf8')).toBe('old-token-1\n');
      expect(readdirSync(cfg).filter((name) => name.endsWith('.token') || name.startsWith('.atomic-'))).toEqual([
        'prod.token',
      ]);
    }));

  it('login whose token file cannot be put in place (a folder at its name): exit 3, the profile still reads the token it read before (trial42 F03)', () =>
    withTempDir(async (dir) => {
      const cfg = join(dir, 'cfg');
      const env = { EXAMCTL_CONFIG_DIR: cfg };
      writeFileSync(join(dir, 'managed-token'), 'managed-1\n', { mode: 0o600 });
      const made = testDeps(dir, {}, env);
      expect(
        await runCli(
          [
            'config',
            'set-profile',
            'prod',
            '--base-url',
            'http://127.0.0.1:1',
            '--token-file',
            join(dir, 'managed-token'),
          ],
          made.deps,
        ),
        made.stderr.text,
      ).toBe(0);
      mkdirSync(join(cfg, 'prod.token'));
      mkdirSync(join(cfg, 'fresh.token'));
      const before = readFileSync(join(cfg, 'config.json'), 'utf8');
      for (const name of ['prod', 'fresh']) {
        const io = testDeps(dir, { stdin: Readable.from(['new-token-2\n']) }, env);
        expect(
          await runCli(
            ['login', '--profile', name, '--base-url', 'http://127.0.0.1:1', '--with-token', '--no-verify'],
            io.deps,
          ),
          io.stderr.text,
        ).toBe(3);
        expect(io.stderr.text).toContain(`${name}.token`);
      }
      expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8'))).toEqual(JSON.parse(before));
    }));

  it('a failed login leaves a config without a default profile without one (trial43 F01); a profile whose set holds a secret, written by hand, is refused unread (F02)', () =>
    withTempDir(async (dir) => {
      const cfg = join(dir, 'cfg');
      mkdirSync(cfg, { mode: 0o700 });
      const config = { version: 1, profiles: { prod: { baseUrl: 'http://127.0.0.1:1' } } };
      writeFileSync(join(cfg, 'config.json'), JSON.stringify(config), { mode: 0o600 });
      mkdirSync(join(cfg, 'prod.token'));
      const io = testDeps(dir, { stdin: Readable.from(['new-token-2\n']) }, { EXAMCTL_CONFIG_DIR: cfg });
      expect(await runCli(['login', '--profile', 'prod', '--with-token', '--no-verify'], io.deps), io.stderr.text).toBe(
        3,
      );
      expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).defaultProfile).toBeUndefined();
      const secret = { version: 1, profiles: { p: { defaults: { set: { pass_word: 'Hunter2-S3cret' } } } } };
      writeFileSync(join(cfg, 'config.json'), JSON.stringify(secret), { mode: 0o600 });
      for (const args of [
        ['config', 'list', '--json'],
        ['--profile', 'p', 'user', 'sync', '--file', 'u.csv', '--dry-run'],
      ]) {
        const run = testDeps(dir, {}, { EXAMCTL_CONFIG_DIR: cfg });
        expect(await runCli(args, run.deps)).toBe(2);
        expectCoded(run.stderr.text, 'E2000', 'pass_word', 'examctl config set-profile p --unset set');
        expect(`${run.stdout.text}${run.stderr.text}`).not.toContain('Hunter2');
      }
      // The way out the words give works (trial44 F01): the config commands that change it read it.
      const repair = testDeps(dir, {}, { EXAMCTL_CONFIG_DIR: cfg });
      expect(await runCli(['config', 'set-profile', 'p', '--unset', 'set'], repair.deps), repair.stderr.text).toBe(0);
      expect(`${repair.stdout.text}${repair.stderr.text}`).not.toContain('Hunter2');
      const listed = testDeps(dir, {}, { EXAMCTL_CONFIG_DIR: cfg });
      expect(await runCli(['config', 'list', '--json'], listed.deps), listed.stderr.text).toBe(0);
    }));
});
