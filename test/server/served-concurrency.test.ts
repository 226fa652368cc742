import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVED_CONCURRENCY } from '../../src/defaults.js';
import { range, writeUsersCsv } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { demoServerDirs } from '../support/serve-store.js';

/**
 * Toward `local serve` a run that names no concurrency widens its window once an answer says the
 * server is one, and says so; a number given (--concurrency, a profile's) holds (docs/remote.md,
 * "Limits, timeouts, retries").
 */
const place = demoServerDirs('served-concurrency');

async function night(extra: string[]): Promise<{ code: number | null; said: string[] }> {
  const file = join(place.dir, 'users.csv');
  await writeUsersCsv(file, range('w', 40));
  const env = { ...place.env, EXAMCTL_CONFIG_DIR: join(place.dir, 'config') };
  const run = await examctl(
    ['--base-url', place.baseUrl, '--yes', ...extra, 'user', 'sync', '--file', file],
    place.dir,
    env,
  );
  return { code: run.code, said: run.stderr.split('\n').filter((line) => line.startsWith('concurrency: ')) };
}

describe('the default window toward local serve', () => {
  it('no number given: the run takes SERVED_CONCURRENCY and says where from', async () => {
    const { code, said } = await night([]);
    expect(code).toBe(0);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`concurrency: ${SERVED_CONCURRENCY} in flight`);
    expect(said[0]).toContain('local serve');
  });

  it('--concurrency given: it holds, nothing said', async () => {
    expect(await night(['--concurrency', '4'])).toEqual({ code: 0, said: [] });
  });

  it("a profile's concurrency holds too", async () => {
    const env = { ...place.env, EXAMCTL_CONFIG_DIR: join(place.dir, 'config') };
    const set = await examctl(
      ['config', 'set-profile', 'lab', '--base-url', place.baseUrl, '--concurrency', '3'],
      place.dir,
      env,
    );
    expect(set.code).toBe(0);
    expect(await night(['--profile', 'lab'])).toEqual({ code: 0, said: [] });
  });

  it('is said only where requests are sent: not by doctor, nor by an apply refused before sending', async () => {
    const env = { ...place.env, EXAMCTL_CONFIG_DIR: join(place.dir, 'config') };
    const step = (args: string[]) => examctl(['--base-url', place.baseUrl, '--yes', ...args], place.dir, env);
    const said = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('concurrency: '));
    const [planned, other] = [join(place.dir, 'planned.csv'), join(place.dir, 'other.csv')];
    await writeUsersCsv(planned, range('p', 3));
    await writeUsersCsv(other, range('o', 1));
    // A night with --changed-only keeps a memory, which doctor and apply then read from the server.
    const night = await step(['user', 'sync', '--file', other, '--changed-only']);
    expect(said(night.stderr)).toHaveLength(1);
    const doctor = await step(['doctor']);
    expect(doctor.stderr).toContain('sync memory');
    expect(said(doctor.stderr)).toEqual([]);
    const plan = join(place.dir, 'tonight.plan.json');
    expect(
      (await step(['user', 'sync', '--file', planned, '--changed-only', '--dry-run', '--plan-out', plan])).code,
    ).toBe(0);
    await writeUsersCsv(other, range('o', 2));
    expect((await step(['user', 'sync', '--file', other, '--changed-only'])).code).toBe(0);
    const refused = await step(['apply', plan]);
    expect(refused.stderr).toContain('E2601');
    expect(said(refused.stderr)).toEqual([]);
  });
});
