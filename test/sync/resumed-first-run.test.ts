import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * The platform's answer does not say created or updated (`local serve`'s does: docs/remote.md); the memory
 * does, once it knows the population (docs/sync.md, "Created or updated"). A first run knows nothing: its
 * users are `sent`. Killed and resumed, it is still a first run: its own start put the population on record,
 * which must not make the resume call users `created` that may have been on the target all along.
 */

let place: UserSyncService;
beforeEach(async () => {
  place = await startUserSyncService('resumed-first-', () => {});
});
afterEach(() => stopUserSyncService(place));

describe('a first user sync through a remote target, killed and resumed', () => {
  it('says sent (what it did: not known) for every user, as the run would have without the kill', async () => {
    const { dir, env } = place;
    await writeUsersCsv(join(dir, 'users.csv'), range('first', 300));
    const remote = place.remote();
    const killed = await examctl(['user', 'sync', '--file', 'users.csv', ...remote], dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:50:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await examctl([...remote.slice(2), '--json', 'runs', 'resume'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const items = (JSON.parse(resumed.stdout) as { items: { status: string; action?: string }[] }).items;
    expect(items).toHaveLength(300);
    expect(new Set(items.map((item) => `${item.status} ${item.action}`))).toEqual(new Set(['ok sent']));
  });
});
