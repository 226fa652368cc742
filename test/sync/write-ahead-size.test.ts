import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';

/**
 * What a run uploads to a state service grows with the night's changes, not with the memory
 * (docs/sync.md, "Written ahead", "Stored as deltas"): the same 10 changed rows against a memory
 * of 100 users and of 2,000 write about the same bytes of intents and of delta at the end.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const server = stateServerPerTest();

function writeUsers(dir: string, count: number, renamed = 0): void {
  const rows = Array.from(
    { length: count },
    (_, i) => `wa-${i},First,${i < renamed ? 'Renamed' : 'Last'} ${i},wa-${i}@example.test,name-wa-${i},Candidate`,
  );
  writeFileSync(join(dir, 'users.csv'), `${[HEADER, ...rows].join('\n')}\n`);
}

async function sync(dir: string, name: string): Promise<void> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: server.address(name) });
  const code = await runCli(
    [
      'user',
      'sync',
      '--file',
      'users.csv',
      '--target',
      'local',
      '--store',
      `store-${name}`,
      '--changed-only',
      '--json',
    ],
    io.deps,
  );
  expect(code, io.stderr.text).toBe(0);
}

/** Bytes POSTed during `run` to the intents of `name`, and to its memory. */
async function uploads(name: string, run: () => Promise<void>): Promise<{ intents: number; memory: number }> {
  const from = server.requests.length;
  await run();
  const posted = server.requests
    .slice(from)
    .filter((request) => request.method === 'POST' && request.path.startsWith(`/state/${name}`));
  const bytes = (intents: boolean) =>
    posted
      .filter((request) => request.path.includes('-intents-') === intents)
      .reduce((sum, request) => sum + Buffer.byteLength(request.body), 0);
  return { intents: bytes(true), memory: bytes(false) };
}

describe('written ahead', () => {
  it("the intents' size grows with the changes, not the memory", () =>
    withTempDir(async (dir) => {
      const measured: Record<number, { intents: number; memory: number }> = {};
      for (const size of [100, 2_000]) {
        writeUsers(dir, size);
        await sync(dir, `m${size}`);
        writeUsers(dir, size, 10);
        measured[size] = await uploads(`m${size}`, () => sync(dir, `m${size}`));
      }
      // The night's end stores its delta (docs/sync.md, "Stored as deltas"): it too grows with the changes, and both are a small share of the memory.
      expect(measured[2_000]!.memory).toBeLessThan(1.5 * measured[100]!.memory);
      expect(measured[2_000]!.intents).toBeLessThan(1.5 * measured[100]!.intents);
      const whole = Buffer.byteLength(server.states.get('/state/m2000')!);
      expect(measured[2_000]!.intents + measured[2_000]!.memory).toBeLessThan(whole / 10);
    }));

  it('a batch of intents that does not hold is exit 2 naming it, nothing sent: what a lost run sent is not known', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 3);
      server.states.set('/state/damaged-intents-0', '{"format":"examctl-sync-intents","lines":{}}');
      const io = testDeps(
        dir,
        {},
        { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: server.address('damaged') },
      );
      const code = await runCli(
        ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--changed-only', '--json'],
        io.deps,
      );
      expect(code).toBe(2);
      expectCoded(io.stderr.text, 'E2507', `${server.address('damaged')}-intents-0`, 'intents');
      expect(server.states.has('/state/damaged')).toBe(false);
    }));
});
