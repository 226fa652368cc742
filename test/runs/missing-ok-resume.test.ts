import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * `invigilators remove --missing-ok` killed after its removals went out, then resumed: the resend
 * of each id in flight answers 319, which is what the killed attempt's own removal leaves. The
 * resume must not say "nothing to remove" (it may have removed them): `sent`, with the note that
 * it cannot tell (docs/runs.md).
 */
const dir = mkdtempSync(join(tmpdir(), 'examctl-missing-ok-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('invigilators remove --missing-ok, killed and resumed', () => {
  it('reports the ids in flight as sent, noted, not as already not invigilators; exit 0', async () => {
    const world = JSON.parse(readFileSync(resolve(__dirname, '../../fixtures/world.json'), 'utf8')) as {
      Users: Record<string, unknown>[];
      Schedules: { ScheduleExtId: string; Invigilators: string[] }[];
    };
    const invigilator = world.Users.find((user) => user.ExternalId === 'inv-1')!;
    const extra = Array.from({ length: 12 }, (_, i) => `inv-${i + 10}`);
    for (const id of extra)
      world.Users.push({ ...invigilator, ExternalId: id, UserName: id, Email: `${id}@example.test` });
    world.Schedules.find((schedule) => schedule.ScheduleExtId === 'S-FUTURE')!.Invigilators.push(...extra);
    writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
    writeFileSync(join(dir, 'ids.txt'), `${extra.join('\n')}\n`);
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
    expect((await examctl(['--store', 'st', 'local', 'init', '--seed', 'world.json'], dir, env)).code).toBe(0);
    const killed = await examctl(
      ['--store', 'st', 'invigilators', 'remove', 'S-FUTURE', '--file', 'ids.txt', '--missing-ok'],
      dir,
      { ...env, EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:1:SIGKILL' },
    );
    expect(killed.code).not.toBe(0);
    const resumed = await examctl(['--store', 'st', 'runs', 'resume', '--json'], dir, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const items = (
      JSON.parse(resumed.stdout) as { items: { id: string; status: string; action?: string; note?: string }[] }
    ).items;
    expect(items).toHaveLength(12);
    for (const item of items) {
      expect(item.status).toBe('ok');
      // The killed attempt's one request removed them all (killed at its first answer, before any was journaled).
      expect(item.action).toBe('sent');
      expect(item.note).toMatch(/interrupted attempt of run \S+ may have applied it/);
    }
    expect(resumed.stderr).not.toContain('(nothing to remove)');
    expect(resumed.stderr).toContain(
      'no longer invigilators of S-FUTURE (the interrupted attempt may have removed them, or they were not): inv-10, inv-11',
    );
  });
});
