import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ItemRef } from '../../src/runs/journal-lines.js';
import type { NewRunHeader } from '../../src/runs/run-journal.js';

export function tempRunsDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'examctl-runs-test-'));
  return { dir: join(dir, 'runs'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function header(overrides: Partial<NewRunHeader> = {}): NewRunHeader {
  return {
    command: 'user sync',
    options: { file: 'users.csv' },
    target: { kind: 'local', store: '/tmp/store' },
    input: null,
    ...overrides,
  };
}

export const ref = (n: number): ItemRef => ({ n, source: { file: 'users.csv', line: n + 2, index: n }, id: `u-${n}` });

/** A pid that no process has any more: a child that already exited. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** The LOCK a killed process leaves in its run's directory. */
export function leaveStaleLock(runDirPath: string): void {
  const pid = deadPid();
  writeFileSync(
    join(runDirPath, 'LOCK'),
    `${JSON.stringify({ pid, host: hostname(), command: 'examctl user sync', since: new Date().toISOString(), token: `${pid}-dead` })}\n`,
  );
}
