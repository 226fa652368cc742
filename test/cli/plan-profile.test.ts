import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import { withTempDir } from './helpers.js';
import { expectCoded } from '../support/coded-message.js';

/**
 * A profile's settings shape the requests (`--set`, `--map`): a plan records those its dry run read, and an apply
 * that would read others (the profile changed, removed, or another `--profile`) is refused before anything is
 * sent (docs/plan.md, "Refusals"), not sent in part with the rest failing 9024.
 */

const csv =
  'ExternalId,FirstName,LastName,Email,Role\nu-1,Ada,Ng,u1@example.test,Candidate\nu-2,Bo,Li,u2@example.test,Candidate\n';

describe("a plan made on a profile's settings", () => {
  it('applies with the same settings; refused (E2601, nothing sent) when apply would read others', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const store = ['--store', join(dir, 'store')];
      const run = (args: string[]) => examctl(args, dir, env);
      expect((await run([...store, 'local', 'init'])).code).toBe(0);
      expect((await run(['config', 'set-profile', 'hr', '--set', 'CellularPhone=+441234', '--default'])).code).toBe(0);
      await writeFile(join(dir, 'users.csv'), csv);
      const plan = [...store, 'user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out'];
      expect((await run([...plan, 'p.json'])).code).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')).settings).toBe('set CellularPhone=+441234');
      expect((await run([...plan, 'q.json'])).code).toBe(0);

      // Another profile named to apply: refused, naming both settings, nothing sent.
      expect((await run(['config', 'set-profile', 'other', '--set', 'CellularPhone=+449999'])).code).toBe(0);
      const other = await run([...store, 'apply', 'p.json', '--profile', 'other']);
      expect(other.code).toBe(2);
      expectCoded(other.stderr, 'E2601', 'p.json', '+449999', '+441234');
      // The default profile's set removed since: refused too.
      expect((await run(['config', 'set-profile', 'hr', '--unset', 'set'])).code).toBe(0);
      const removed = await run([...store, 'apply', 'p.json']);
      expect(removed.code).toBe(2);
      expectCoded(removed.stderr, 'E2601', 'p.json', '+441234');
      const listed = await run(['runs', 'list', '--json']);
      expect(listed.stdout).not.toContain('p.json');
      expect(JSON.parse((await run([...store, 'local', 'export'])).stdout).Users ?? []).not.toContainEqual(
        expect.objectContaining({ ExternalId: 'u-1' }),
      );

      // The same settings again: applied, every request the plan's.
      expect((await run(['config', 'set-profile', 'hr', '--set', 'CellularPhone=+441234'])).code).toBe(0);
      const applied = await run([...store, 'apply', 'q.json']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stderr).not.toContain('9024');
    }));
});
