import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, env);
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

describe('a base URL that already holds the API path', () => {
  it('config set-profile refuses it up front, naming the service root to give; no profile is written', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, [
        'config',
        'set-profile',
        'dup',
        '--base-url',
        'http://127.0.0.1:8080/api/v1/integrations',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('/api/v1/integrations');
      expect(stderr).toContain("give the service's root: http://127.0.0.1:8080");
      expect(stderr).not.toContain('--no-verify');
      await expect(stat(join(dir, '.config', 'config.json'))).rejects.toThrow();
    });
  });

  it('keeps a service mounted under a path of its own, and a trailing slash is forgiven', async () => {
    await withTempDir(async (dir) => {
      const { code, stderr } = await cli(dir, [
        'config',
        'set-profile',
        'lms',
        '--base-url',
        'https://exam.example.com/lms/API/v1/integrations/',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain("give the service's root: https://exam.example.com/lms");
    });
  });

  it('login --base-url refuses it before any request, so no token is stored for a wrong URL', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { stdin: Readable.from(['not-stored-42\n']) });
      expect(
        await runCli(
          ['login', '--profile', 'dup', '--base-url', 'http://127.0.0.1:9/api/v1/integrations', '--with-token'],
          io.deps,
        ),
      ).toBe(2);
      expect(io.stderr.text).toContain("give the service's root: http://127.0.0.1:9");
      expect(io.stderr.text).not.toContain('--no-verify');
      await expect(stat(join(dir, '.config', 'dup.token'))).rejects.toThrow();
    });
  });
});
