import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownLockInfo } from '../../src/system/lock.js';
import { storeCli, withTempDir } from './helpers.js';

/**
 * `doctor` while a live process holds the store's LOCK: a run started now would wait, then refuse
 * (E3020). A warning with that code naming the holder, not a failure (docs/remote.md, "examctl doctor").
 */
const storeCheck = (stdout: string) =>
  JSON.parse(stdout).checks.find((check: { name: string }) => check.name === 'store');

describe('examctl doctor: a store in use by a live process', () => {
  it('warns E3020 naming its pid and host, still healthy (exit 0)', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      expect((await cli(['local', 'init'])).code).toBe(0);
      await writeFile(join(dir, 'store', 'LOCK'), `${JSON.stringify(ownLockInfo('doctor-test'))}\n`);
      const json = await cli(['doctor', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).healthy).toBe(true);
      const check = storeCheck(json.stdout);
      expect(check).toMatchObject({ status: 'warn', code: 'E3020' });
      expect(check.detail).toContain(`pid ${process.pid}`);
      expect(check.detail).toContain(hostname());
      expect(check.detail).toContain('10000 ms');
      const text = await cli(['doctor']);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^warn\s+store\s+E3020: /m);
    }));

  it('a LOCK left by a process that is gone: ok, no code (a run takes it over)', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      expect((await cli(['local', 'init'])).code).toBe(0);
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      const { started: _started, ...info } = ownLockInfo('gone');
      await writeFile(join(dir, 'store', 'LOCK'), `${JSON.stringify({ ...info, pid: gone })}\n`);
      const check = storeCheck((await cli(['doctor', '--json'])).stdout);
      expect(check.status).toBe('ok');
      expect(check.code).toBeUndefined();
      expect(check.detail).toContain(`pid ${gone}`);
    }));
});
