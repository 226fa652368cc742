import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { ROOT } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A night refused for a lost memory (E2501, nothing sent) opens the memory under its lock, which
 * writes the file's first line: that file holds no run, so `synced show` and `doctor` still say
 * there is no memory (docs/remote.md, "examctl doctor"), never `ok` with 0 users.
 */
let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-refused-night-'));
  env = { EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_RUNS_DIR: join(dir, 'runs') };
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it('a --require-memory night refused for no memory leaves none that synced show or doctor reports', async () => {
  const store = ['--store', join(dir, 'store')];
  const users = join(ROOT, 'fixtures', 'users.csv');
  expect(
    (await examctl(['local', 'init', '--seed', join(ROOT, 'fixtures', 'world.json'), ...store], dir, env)).code,
  ).toBe(0);
  const night = ['user', 'sync', '--file', users, '--changed-only', '--require-memory', ...store];
  const refused = await examctl(night, dir, env);
  expect(refused.code).toBe(2);
  expectCoded(refused.stderr, 'E2501', '--require-memory');
  // Said once, by the refusal: the summary of the run refused adds no warning that says the same.
  expect(refused.stderr.split('\n').filter((line) => line.includes('no sync memory for'))).toHaveLength(1);

  const shown = await examctl(['synced', 'show', '--json'], dir, env);
  expect(shown.code).toBe(0);
  expect(JSON.parse(shown.stdout).memories).toEqual([]);
  const doctor = await examctl(['doctor', '--json', ...store], dir, env);
  const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'sync memory');
  expect(check.status).toBe('skip');
  const exported = await examctl(['synced', 'export', '--out', join(dir, 'm.json'), ...store], dir, env);
  expect(exported.code).toBe(2);

  // The next night is refused the same way: the file made stands for no memory.
  expectCoded((await examctl(night, dir, env)).stderr, 'E2501');
});
