import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { ensureBuilt, examctl, range, startExamctl, writeUsersCsv } from './helpers.js';

/**
 * A hangup (the terminal or the ssh session closed) would kill a run by default, with no report
 * and no end line; it ends like Ctrl-C instead, and the run says it was interrupted.
 */

let dir: string;
let env: Record<string, string>;

beforeAll(() => ensureBuilt());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-hangup-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STORE: join(dir, 'store') };
  expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('SIGHUP ends like Ctrl-C: exit 130, the report written, the run interrupted and resumable', async () => {
  await writeUsersCsv(join(dir, 'users.csv'), range('h', 3000));
  const running = startExamctl(['user', 'sync', '--file', 'users.csv', '--report', 'r.csv'], dir, env);
  let stderr = '';
  running.child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (/run \S+ \(examctl runs show/.test(stderr) || running.child.exitCode !== null) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
  running.child.kill('SIGHUP');
  const finished = await running.done;
  expect(finished.signal).toBeNull();
  expect(finished.code).toBe(130);
  expect(existsSync(join(dir, 'r.csv'))).toBe(true);
  expect(readdirSync(dir).filter((name) => name.includes('.tmp') || name.includes('.atomic-'))).toEqual([]);

  const listed = JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as { runs: { state: string }[] } | { state: string }[];
  const runs = Array.isArray(listed) ? listed : listed.runs;
  expect(runs.map((run) => run.state)).toEqual(['interrupted']);

  const resumed = await examctl(['runs', 'resume'], dir, env);
  expect(resumed.code).toBe(0);
  const shown = JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout) as { summary: { total: number; ok: number } };
  expect(shown.summary).toMatchObject({ total: 3000, ok: 3000 });
}, 60_000);
