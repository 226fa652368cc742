import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { storeCli, testDeps, withTempDir } from '../cli/helpers.js';

/**
 * Rows `--max-errors` stopped the run before were never sent: the sync memory does not keep them
 * (not as sent, not as unsettled), so `doctor` and `synced show` count what was sent, and one of
 * them gone from the next file is no leaver (docs/sync.md, "A request cut short").
 */
async function users(dir: string, name: string, ids: readonly string[]): Promise<string> {
  const rows = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of ids) {
    const email = id.startsWith('bad-') ? 'no-at-sign' : `${id}@example.test`;
    rows.push(`${id},First ${id},Last ${id},${email},${id},Candidate`);
  }
  await writeFile(join(dir, name), `${rows.join('\n')}\n`);
  return name;
}

/** `synced show --json`'s one memory (the command takes no --store). */
async function shownMemory(dir: string) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') });
  expect(await runCli(['synced', 'show', '--json'], io.deps)).toBe(0);
  const { memories } = JSON.parse(io.stdout.text);
  expect(memories).toHaveLength(1);
  return memories[0];
}

const sent = ['u-1', 'u-2', 'u-3', 'u-4', 'u-5'];
const never = Array.from({ length: 15 }, (_, i) => `v-${i + 1}`);

describe('--max-errors: rows the run stopped before are not in the sync memory', () => {
  it('5 sent, 15 skipped: memory, doctor and synced show count 5, none unsettled; a skipped one gone next night is not disabled', () =>
    withTempDir(async (dir) => {
      const cli = storeCli(dir);
      const first = await users(dir, 'first.csv', [...sent, 'bad-1', 'bad-2', ...never]);
      const night = await cli(['user', 'sync', '--file', first, '--max-errors', '2', '--json']);
      expect(night.code).toBe(1);
      expect(JSON.parse(night.stdout).summary).toMatchObject({ ok: 5, failed: 2, skipped: 15 });

      expect(await shownMemory(dir)).toMatchObject({ kind: 'users', remembered: 5, unsettled: 0, disabled: 0 });

      const doctor = await cli(['doctor', '--json']);
      const check = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'sync memory');
      expect(check.detail).toMatch(/users 5\b/);

      // v-15 leaves the file: it was never sent, so it is nobody's leaver.
      const second = await users(dir, 'second.csv', [...sent, ...never.slice(0, -1)]);
      const next = await cli(['user', 'sync', '--file', second, '--disable-missing', '--changed-only', '--json']);
      expect(next.code).toBe(0);
      const doc = JSON.parse(next.stdout);
      expect(doc.items.filter((item: { id: string }) => item.id === 'v-15')).toEqual([]);
      expect(doc.summary).toMatchObject({ ok: 19, failed: 0 });
      expect(await shownMemory(dir)).toMatchObject({ remembered: 19, disabled: 0, unsettled: 0 });
    }));
});
