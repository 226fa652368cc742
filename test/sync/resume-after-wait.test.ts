import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { populationKey } from '../../src/sync/memory-lines.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { childEnv } from '../support/child-env.js';
import { PINNED_NOW } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';

/**
 * A resume that waits for the sync memory's lock judges again, once it holds it, whether a later
 * run is on record (docs/runs.md, "runs resume"): tonight's run, started at the same moment, may
 * put itself there while the resume waits. Here a holder of the lock records the later run only
 * once the resume says it is waiting (its own checks passed), then lets go.
 */

const all = range('stu', 300);
let setup: UserSyncService;
let applied: string[];

beforeEach(async () => {
  setup = await startUserSyncService('examctl-resume-wait-', (user) => void applied.push(user.ExternalId as string));
  applied = [];
  await writeUsersCsv(join(setup.dir, 'full.csv'), all);
  await writeUsersCsv(join(setup.dir, 'night-2.csv'), all.slice(0, 290));
});
afterEach(() => stopUserSyncService(setup));

/** stderr that calls `onText` with all it holds after each write. */
const watched = (onText: (text: string) => void) => {
  let text = '';
  return {
    write: (part: string) => void onText((text += part)),
    get text() {
      return text;
    },
  };
};

describe('runs resume racing a later run for the memory lock', () => {
  it('is refused (exit 2, nothing sent) when the later run put itself on record while it waited', async () => {
    const { dir, env } = setup;
    const night = (file: string) => [
      'user',
      'sync',
      '--file',
      file,
      ...setup.remote(),
      '--changed-only',
      '--disable-missing',
      '--max-disable',
      '100%',
    ];
    expect((await examctl(night('full.csv'), dir, env)).code).toBe(0);
    const killed = await examctl(night('night-2.csv'), dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    const older = /run (\S+) \(examctl runs show/.exec(killed.stderr)![1]!;

    // Tonight's run, on another runner sharing the memory: it holds the lock (so the resume waits) ...
    const syncDir = join(dir, 'state', 'synced');
    const file = join(syncDir, readdirSync(syncDir)[0]!, 'users.ndjson');
    const target = JSON.parse(/"target":(\{[^}]*\})/.exec(readFileSync(file, 'utf8'))![1]!) as {
      kind: 'remote';
      baseUrl: string;
    };
    const tonight = await SyncMemory.open(syncDir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
    applied = [];
    let waiting!: () => void;
    const waited = new Promise<void>((resolve) => (waiting = resolve));
    const stderr = watched((text) => text.includes('waiting for') && waiting());
    const resume = runCli(
      ['--base-url', setup.service.url, '--allow-insecure-http', '--yes', 'runs', 'resume', older],
      {
        stdout: watched(() => undefined),
        stderr,
        env: { ...childEnv(dir), EXAMCTL_NOW: PINNED_NOW, ...env, EXAMCTL_LOCK_TIMEOUT_MS: '600000' },
        now: () => new Date(),
        isTTY: false,
        cwd: dir,
      },
    );
    // ... and, once the resume waits, puts itself on record as the population's newest run, then ends.
    await waited;
    const later = `${Number(older.slice(0, 4)) + 1}${older.slice(4)}`;
    tonight.recordPopulation(populationKey(undefined), later, true);
    await tonight.close();

    expect(await resume, stderr.text).toBe(2);
    expectCoded(stderr.text, 'E2202', 'user sync', later);
    expect(applied).toEqual([]);
    // Still to be resumed (with --over-later-runs), as when refused before the wait.
    expect((await examctl(['runs', 'list'], dir, env)).stdout).toMatch(new RegExp(`${older}\\s+interrupted`));
  });
});
