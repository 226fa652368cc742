import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { demoServerDirs } from '../support/serve-store.js';

/**
 * A mover whose link is gone already (docs/sync.md, "Movers"): through `local serve` examctl cannot leave out the
 * DELETE of a link the store no longer holds, so it is sent, and the served engine answers `unchanged`. The run
 * says what the target said, as for a leaver disabled already: unchanged, no mover, nothing pruned. Found by hand:
 * the sync memory restored to a copy from before the night that moved the user.
 */

const place = demoServerDirs('mover-gone');
const HEAD = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';

interface Run {
  code: number | null;
  stderr: string;
  items: { id: string; action?: string; removed?: string[] }[];
  summary: { actions?: Record<string, number>; movers?: number; unchanged?: number };
}

async function night(hierarchy: string): Promise<Run> {
  writeFileSync(
    join(place.dir, 'users.csv'),
    `${HEAD}\nmv-1,Ann,Lee,ann@example.test,mv-1,Candidate,${hierarchy}\nmv-2,Bo,Ng,bo@example.test,mv-2,Candidate,H-NORTH\n`,
  );
  const run = await examctl(
    [
      'user',
      'sync',
      '--file',
      'users.csv',
      '--prune-memberships',
      '--max-prune',
      '100%',
      '--base-url',
      place.baseUrl,
      '--yes',
      '--json',
    ],
    place.dir,
    { ...place.env, EXAMCTL_SYNC_DIR: join(place.dir, 'synced') },
  );
  const document = JSON.parse(run.stdout) as Pick<Run, 'items' | 'summary'>;
  return { code: run.code, stderr: run.stderr, ...document };
}

describe('a mover whose link the served store no longer holds', () => {
  it('is unchanged, as the target answers: not counted pruned, nor a mover', async () => {
    expect((await night('H-SOUTH')).code).toBe(0);
    cpSync(join(place.dir, 'synced'), join(place.dir, 'synced-before'), { recursive: true });
    const moved = await night('H-NORTH');
    expect(moved.items.find((item) => item.id === 'mv-1')).toMatchObject({ action: 'updated', removed: ['H-SOUTH'] });
    expect(moved.summary).toMatchObject({ actions: { prune: 1 }, movers: 1 });
    // The memory restored to before that night: it still names H-SOUTH, which the store lost then.
    rmSync(join(place.dir, 'synced'), { recursive: true });
    cpSync(join(place.dir, 'synced-before'), join(place.dir, 'synced'), { recursive: true });
    const again = await night('H-NORTH');
    expect(again.code, again.stderr).toBe(0);
    expect(again.items.find((item) => item.id === 'mv-1')?.action).toBe('unchanged');
    expect(again.summary.actions).toEqual({ unchanged: 2 });
    expect(again.summary.movers).toBeUndefined();
    // Not its settings line: the sync memory's place may hold the words.
    expect(again.stderr.replace(/^target: .*\n/m, '')).not.toMatch(/mover|pruned/);
  });
});
