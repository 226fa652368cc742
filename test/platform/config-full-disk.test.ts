import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** `config set-profile` on a full disk (trial23 f06): exit 3 naming the config file, never an internal error (70); the config stays whole. */
const full = vi.hoisted(() => ({ on: false }));
vi.mock('../../src/system/atomic-file.js', async (original) => {
  const real = await original<typeof import('../../src/system/atomic-file.js')>();
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  return { ...real, writeFileAtomic: async (...args: Parameters<typeof real.writeFileAtomic>) => (full.on ? Promise.reject(enospc()) : real.writeFileAtomic(...args)) };
});

const { runCli } = await import('../../src/cli/run-cli.js');
const { testDeps, withTempDir } = await import('../cli/helpers.js');

describe('the config on a full disk', () => {
  it('config set-profile: exit 3, cannot write <config>: no space left on the device (ENOSPC); the old config kept', () =>
    withTempDir(async (dir) => {
      const cli = async (argv: string[]) => {
        const io = testDeps(dir, {}, { EXAMCTL_LOCK_TIMEOUT_MS: '0' });
        return { code: await runCli(argv, io.deps), stderr: io.stderr.text };
      };
      expect((await cli(['config', 'set-profile', 'a', '--base-url', 'https://a.example.test'])).code).toBe(0);
      const config = join(dir, '.config', 'config.json');
      const before = readFileSync(config, 'utf8');
      full.on = true;
      const failed = await cli(['config', 'set-profile', 'b', '--base-url', 'https://b.example.test']).finally(() => (full.on = false));
      expect(failed.code).toBe(3);
      expect(failed.stderr).toContain(`cannot write ${config}: no space left on the device (ENOSPC)`);
      expect(readFileSync(config, 'utf8')).toBe(before);
    }));
});
