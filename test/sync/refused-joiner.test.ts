import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localStoreDirs } from '../support/local-store-dir.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A joiner whose only request the target refused (docs/sync.md, "A request cut short"): its
 * tentative entry, written before the request went, is forgotten again once the answer is a
 * definite refusal, so the next night never takes the id for a leaver. The demo world's c-1001 is
 * an account examctl never made; a row giving it the UserName of another user (jdoe) is refused
 * (214), and the night after, without the row, must leave c-1001 alone.
 */

const place = localStoreDirs('refused-joiner');

const ids = Array.from({ length: 30 }, (_, i) => `u-${i + 1}`);
const header = 'ExternalId,FirstName,LastName,UserName,Role,Hierarchies';
function writeUsers(file: string, extra: string[] = []): void {
  writeFileSync(
    join(place.dir, file),
    `${[header, ...ids.map((id) => `${id},A,B,${id},Candidate,H-NORTH`), ...extra].join('\n')}\n`,
  );
}
const night = (file: string, ...more: string[]) =>
  examctl(
    [
      'user',
      'sync',
      '--file',
      file,
      '--target',
      'local',
      '--store',
      'store',
      '--json',
      '--changed-only',
      '--disable-missing',
      '--yes',
      ...more,
    ],
    place.dir,
    place.env,
  );
interface StoredUser {
  ExternalId: string;
  FirstName: string;
  LastName: string;
  DisableLogin?: boolean;
}
const storedUser = async (id: string): Promise<StoredUser | undefined> => {
  const exported = await examctl(['local', 'export', '--store', 'store'], place.dir, place.env);
  return (JSON.parse(exported.stdout) as { Users: StoredUser[] }).Users.find((user) => user.ExternalId === id);
};
const disabled = async (id: string): Promise<boolean> => (await storedUser(id))?.DisableLogin === true;

describe('a joiner the target refused', () => {
  it('is forgotten: the next night without its row disables nobody, and counts 30 remembered users, not 31', async () => {
    writeUsers('night-1.csv');
    expect((await night('night-1.csv')).code).toBe(0);
    writeUsers('night-2.csv', ['c-1001,Ada,Moreno,jdoe,Candidate,H-NORTH']);
    const refused = await night('night-2.csv');
    expect(refused.code, refused.stderr).toBe(1);
    const item = (
      JSON.parse(refused.stdout) as { items: { id: string; status: string; errors: { code: number | null }[] }[] }
    ).items.find((entry) => entry.id === 'c-1001');
    expect(item).toMatchObject({ status: 'failed', errors: [{ code: 214 }] });
    const shown = await examctl(['synced', 'show', '--json'], place.dir, place.env);
    const memory = (JSON.parse(shown.stdout) as { memories: { remembered: number; unsettled: number }[] }).memories[0];
    expect(memory).toMatchObject({ remembered: 30, unsettled: 0 });

    // Night 3: the row is gone from the file. c-1001 is not examctl's: left alone, exit 0, and the
    // threshold's base is the 30 users examctl synced.
    // Night 1's very file after night 2's: an older run's file (docs/sync.md, "Stale input"), meant here.
    const next = await night('night-1.csv', '--allow-old-file');
    expect(next.code, next.stderr).toBe(0);
    const document = JSON.parse(next.stdout) as { items: { id: string; action?: string }[] };
    expect(document.items.some((entry) => entry.id === 'c-1001')).toBe(false);
    expect(await disabled('c-1001')).toBe(false);

    // The memory file holds the forget line; a later row for the id is a joiner again, remembered when acknowledged.
    writeUsers('night-4.csv', ['c-1001,Ada,Moreno,c-1001,Candidate,H-NORTH']);
    const fixed = await night('night-4.csv');
    expect(fixed.code, fixed.stderr).toBe(0);
    writeUsers('night-5.csv');
    // Night 4's joiner alone gone the next night: it really left, so the stale-input refusal is passed (docs/sync.md, "Stale input").
    // Night 5's file is night 1's byte for byte: --allow-old-file too.
    const left = await night('night-5.csv', '--allow-disable-recent', '--allow-old-file');
    expect(left.code, left.stderr).toBe(0);
    expect(
      (JSON.parse(left.stdout) as { items: { id: string; action?: string }[] }).items.find(
        (entry) => entry.id === 'c-1001',
      ),
    ).toMatchObject({ action: 'disabled' });
    expect(await disabled('c-1001')).toBe(true);
  });

  it('killed after its request was put on record, then resumed: the refusal forgets it all the same', async () => {
    writeUsers('night-1.csv');
    expect((await night('night-1.csv')).code).toBe(0);
    writeUsers('night-2.csv', ['c-1001,Ada,Moreno,jdoe,Candidate,H-NORTH']);
    const killed = await examctl(
      [
        'user',
        'sync',
        '--file',
        'night-2.csv',
        '--target',
        'local',
        '--store',
        'store',
        '--changed-only',
        '--disable-missing',
        '--yes',
      ],
      place.dir,
      {
        ...place.env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'sent:1:SIGKILL',
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await examctl(['runs', 'resume', '--yes', '--json'], place.dir, place.env);
    expect(resumed.code, resumed.stderr).toBe(1);
    // Night 1's very file after night 2's: an older run's file (docs/sync.md, "Stale input"), meant here.
    const next = await night('night-1.csv', '--allow-old-file');
    expect(next.code, next.stderr).toBe(0);
    expect((JSON.parse(next.stdout) as { items: { id: string }[] }).items.some((entry) => entry.id === 'c-1001')).toBe(
      false,
    );
    expect(await disabled('c-1001')).toBe(false);
  });

  it('a refused change to a remembered user leaves what was acknowledged: still a leaver, disabled with the names the platform holds, nothing forgotten', async () => {
    writeUsers('night-1.csv', ['u-99,Ann,Lee,u-99,Candidate,H-NORTH']);
    expect((await night('night-1.csv')).code).toBe(0);
    writeUsers('night-2.csv', ['u-99,Annie,Leigh,jdoe,Candidate,H-NORTH']);
    expect((await night('night-2.csv')).code).toBe(1);
    writeUsers('night-3.csv');
    const left = await night('night-3.csv');
    expect(left.code, left.stderr).toBe(0);
    expect(await storedUser('u-99')).toMatchObject({ FirstName: 'Ann', LastName: 'Lee', DisableLogin: true });
    const synced = join(place.dir, 'state', 'synced');
    expect(readFileSync(join(synced, readdirSync(synced)[0]!, 'users.ndjson'), 'utf8')).not.toContain('"gone":true');
  });
});
