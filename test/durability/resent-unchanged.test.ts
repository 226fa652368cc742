import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range, startExamctl } from './helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A night killed once its rows were on record as sent, before their requests went (`sent:` marker), on
 * the local store: the store's head says it changed none of their keys since the run began, so the
 * resume's answers are exact (docs/runs.md, "runs resume"): `unchanged` where the store already held the
 * row, not `sent (what it did: not known)`.
 */

const USERS = 20;
let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-resent-unchanged-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of range('r', USERS)) lines.push(`${id},Ann,Last,${id}@example.test,name-${id},Candidate`);
  await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const SYNC = ['user', 'sync', '--file', 'users.csv', '--store', 'store', '--yes'];

describe('a resume of a night killed before its requests went, on the local store', () => {
  it('reports a row the store already held unchanged, exactly, not "sent"', async () => {
    expect((await examctl(SYNC, dir, env)).code).toBe(0);
    const killed = startExamctl(SYNC, dir, { ...env, EXAMCTL_TEST_SIGNAL_AFTER: `sent:${USERS}:SIGKILL` });
    expect((await killed.done).signal).toBe('SIGKILL');
    const resumed = await examctl(['runs', 'resume', '--json', '--store', 'store'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const items = (JSON.parse(resumed.stdout) as { items: { id: string; action?: string }[] }).items;
    expect(items).toHaveLength(USERS);
    expect(items.map((item) => item.action)).toEqual(Array(USERS).fill('unchanged'));
  });
});
