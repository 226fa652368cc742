import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { demoServerDirs } from '../support/serve-store.js';

/**
 * A create refused because its id is taken (a duplicate ScheduleExtId) says the id is on the
 * target, whoever made it (docs/runs.md, "`runs resume [<id>]` (default: the newest run, if
 * interrupted)"): the sync memory records it as existing, so a later request for it through a remote
 * target, whose answers do not say created or updated, is `updated`, not `created`. The demo
 * world holds S-FUTURE, a schedule examctl never sent.
 */

const place = demoServerDirs('refused-existing');

interface Pushed {
  items: { id: string; status: string; action?: string; errors?: unknown }[];
}

const push = async (...flags: string[]): Promise<{ code: number | null; items: Pushed['items'] }> => {
  const run = await examctl(
    [
      'schedule',
      'push',
      '--file',
      'sittings.csv',
      '--target',
      'remote',
      '--base-url',
      place.baseUrl,
      '--yes',
      '--json',
      '--workflow',
      'EXTERNAL_ATTEMPTS',
      ...flags,
    ],
    place.dir,
    place.env,
  );
  return { code: run.code, items: (JSON.parse(run.stdout) as Pushed).items };
};

describe('a schedule refused as a duplicate', () => {
  it('is remembered as existing: the next --upsert run says updated, not created', async () => {
    const head =
      'ScheduleExtId,AssessmentExtId,Title,StartDateTime,EndDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email,AttemptExtId';
    writeFileSync(
      join(place.dir, 'sittings.csv'),
      `${head}\nS-FUTURE,A-PHYS-2,Taken,2026-12-10T09:00:00Z,2026-12-10T13:00:00Z,H-NORTH-LAB,North lab,stu-e1,Ann,Lee,ann@example.test,att-e1\n` +
        `S-NEW-1,A-PHYS-2,New,2026-12-10T09:00:00Z,2026-12-10T13:00:00Z,H-NORTH-LAB,North lab,stu-e2,Bo,Ng,bo@example.test,att-e2\n`,
    );
    const first = await push();
    expect(first.code, JSON.stringify(first.items)).toBe(1);
    expect(first.items.map((item) => [item.id, item.status, item.action])).toEqual([
      ['S-FUTURE', 'failed', undefined],
      ['S-NEW-1', 'ok', 'created'],
    ]);
    const again = await push('--upsert', '--changed-only');
    expect(again.code, JSON.stringify(again.items)).toBe(0);
    expect(again.items.map((item) => [item.id, item.status, item.action])).toEqual([
      ['S-FUTURE', 'ok', 'updated'],
      // Sent again: a request with Upsert is another request (its digest differs); the store holds it so already.
      ['S-NEW-1', 'ok', 'unchanged'],
    ]);
  });
});

describe("a collection refused as taken (810), someone else's", () => {
  it('is never taken for one examctl sent: --existing ok fails it on every run, whatever this run asked', async () => {
    const add = (file: string, flags: string[], syncDir?: string) =>
      examctl(
        [
          'collection',
          'add',
          '--file',
          file,
          '--target',
          'remote',
          '--base-url',
          place.baseUrl,
          '--yes',
          '--json',
          ...flags,
        ],
        place.dir,
        syncDir === undefined ? place.env : { ...place.env, EXAMCTL_SYNC_DIR: syncDir },
      );
    writeFileSync(join(place.dir, 'theirs.json'), JSON.stringify([{ ExternalId: 'colx', Title: 'Someone else' }]));
    writeFileSync(
      join(place.dir, 'ours.json'),
      JSON.stringify([
        { ExternalId: 'colx', Title: 'Ours' },
        { ExternalId: 'coly', Title: 'Ours too' },
      ]),
    );
    // Made by another examctl, with a memory of its own: this one has no record of it.
    expect((await add('theirs.json', [], join(place.dir, 'their-memory'))).code).toBe(0);
    for (const attempt of [1, 2]) {
      const run = await add('ours.json', ['--existing', 'ok']);
      expect(run.code, `attempt ${attempt}: ${run.stderr}`).toBe(1);
      const items = (
        JSON.parse(run.stdout) as {
          items: { id: string; status: string; errors: { code: number; message: string }[] }[];
        }
      ).items;
      expect(items[0]).toMatchObject({ id: 'colx', status: 'failed' });
      expect(items[0]!.errors[0]).toMatchObject({
        code: 810,
        message: expect.stringMatching(/no record.*synced adopt-collections/),
      });
      expect(items[1]).toMatchObject({ id: 'coly', status: 'ok' });
    }
  });

  it('nor after a run that sent it was killed: an answer lost proves nothing, with the same fields or not', async () => {
    const add = (flags: string[], extraEnv: Record<string, string> = {}) =>
      examctl(
        [
          'collection',
          'add',
          '--file',
          'ours.json',
          '--target',
          'remote',
          '--base-url',
          place.baseUrl,
          '--yes',
          '--json',
          ...flags,
        ],
        place.dir,
        { ...place.env, ...extraEnv },
      );
    // Someone else's, with this very request's fields.
    writeFileSync(join(place.dir, 'theirs.json'), JSON.stringify([{ ExternalId: 'colx', Title: 'Ours' }]));
    expect(
      (
        await examctl(
          ['collection', 'add', '--file', 'theirs.json', '--target', 'remote', '--base-url', place.baseUrl, '--yes'],
          place.dir,
          { ...place.env, EXAMCTL_SYNC_DIR: join(place.dir, 'their-memory') },
        )
      ).code,
    ).toBe(0);
    writeFileSync(
      join(place.dir, 'ours.json'),
      JSON.stringify([
        { ExternalId: 'colx', Title: 'Ours' },
        { ExternalId: 'coly', Title: 'Ours too' },
      ]),
    );
    // Killed once its requests are on record as sent: the memory holds what it was about to send.
    expect((await add([], { EXAMCTL_TEST_SIGNAL_AFTER: 'sent:1:SIGKILL' })).signal).toBe('SIGKILL');
    const run = await add(['--existing', 'ok']);
    expect(run.code, run.stderr).toBe(1);
    const colx = (
      JSON.parse(run.stdout) as { items: { id: string; status: string; errors: { code: number; message: string }[] }[] }
    ).items[0]!;
    expect(colx).toMatchObject({ id: 'colx', status: 'failed' });
    expect(colx.errors[0]!.message).toMatch(
      /examctl sent it there in run \S+ with no definite answer, so it cannot tell whether its request made it or someone else did/,
    );
    expect(colx.errors[0]!.message).toContain('examctl synced adopt-collections');

    // Checked on the platform and found right: adopted, the job is green again, the collection unchanged.
    const adopted = await examctl(
      [
        'synced',
        'adopt-collections',
        '--file',
        'ours.json',
        '--target',
        'remote',
        '--base-url',
        place.baseUrl,
        '--yes',
      ],
      place.dir,
      place.env,
    );
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(lineWith(adopted.stderr, 'adopted 2 collections', 'ours.json', 'remote')).toBeTruthy();
    const green = await add(['--existing', 'ok']);
    expect(green.code, green.stderr).toBe(0);
    expect(
      (JSON.parse(green.stdout) as { items: { id: string; action?: string }[] }).items.map((item) => [
        item.id,
        item.action,
      ]),
    ).toEqual([
      ['colx', 'unchanged'],
      ['coly', 'unchanged'],
    ]);
  });
});
