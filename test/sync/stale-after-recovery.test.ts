import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * Stale input after the documented recovery (docs/sync.md, "When the memory is lost", "Stale input";
 * issue 81, item 6): `synced adopt` records who joined with which adopted file, and keeps what an
 * imported export knew, so an older export in another row order is refused after a lost memory
 * exactly as in a clean history.
 */

async function cli(dir: string, argv: string[]) {
  const io = testDeps(
    dir,
    {},
    { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_LOCK_TIMEOUT_MS: '0' },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const local = ['--target', 'local', '--store', 'store'];
const NIGHT = [...local, '--yes', 'user', 'sync', '--changed-only', '--disable-missing', '--max-disable', '100%'];

const row = (id: string, mail = '') => `${id},F,L,${id}${mail}@example.test,Candidate`;
const csv = (rows: string[]) => `ExternalId,FirstName,LastName,Email,Role\n${rows.join('\n')}\n`;
const ids = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}-${String(from + i).padStart(2, '0')}`);

/** night A: u-01..u-10; night B: u-01..u-08 (three with another email) and joiners j-01..j-05; A again, reversed. */
function writeNights(dir: string): void {
  writeFileSync(join(dir, 'A.csv'), csv(ids('u', 1, 10).map((id) => row(id))));
  writeFileSync(
    join(dir, 'B.csv'),
    csv([...ids('u', 1, 8).map((id, i) => row(id, i < 3 ? '.new' : '')), ...ids('j', 1, 5).map((id) => row(id))]),
  );
  writeFileSync(
    join(dir, 'A-reordered.csv'),
    csv(
      ids('u', 1, 10)
        .reverse()
        .map((id) => row(id)),
    ),
  );
}

async function night(dir: string, file: string) {
  return cli(dir, [...NIGHT, '--file', file]);
}

function expectRefused(run: { code: number; stderr: string }): void {
  expect(run.code, run.stderr).toBe(2);
  expectCoded(run.stderr, 'E2502', '--disable-missing', '5 users', 'j-01, j-02, j-03, j-04, j-05');
}

describe('an older export in another row order, after a lost memory', () => {
  it('is refused after synced adopt of each night file in order, as in the clean history', () =>
    withTempDir(async (dir) => {
      writeNights(dir);
      for (const file of ['A.csv', 'B.csv']) expect((await night(dir, file)).code).toBe(0);
      expectRefused(await night(dir, 'A-reordered.csv'));
      expect((await cli(dir, [...local, 'synced', 'forget'])).code).toBe(0);
      const adopted = await cli(dir, [...local, 'synced', 'adopt', '--file', 'A.csv', '--file', 'B.csv']);
      expect(adopted.code, adopted.stderr).toBe(0);
      expectRefused(await night(dir, 'A-reordered.csv'));
      // Tonight's real export (B's users but one joiner who left) goes: it holds joiners of the last adopted file.
      writeFileSync(
        join(dir, 'C.csv'),
        csv([...ids('u', 1, 8).map((id, i) => row(id, i < 3 ? '.new' : '')), ...ids('j', 1, 4).map((id) => row(id))]),
      );
      expect((await night(dir, 'C.csv')).code).toBe(0);
    }));

  it('is refused after synced import of an older export and synced adopt of the nights since (the joiners it knew are kept)', () =>
    withTempDir(async (dir) => {
      writeNights(dir);
      expect((await night(dir, 'A.csv')).code).toBe(0);
      expect((await cli(dir, [...local, 'synced', 'export', '--out', 'after-A.json'])).code).toBe(0);
      expect((await night(dir, 'B.csv')).code).toBe(0);
      expect((await cli(dir, [...local, 'synced', 'forget'])).code).toBe(0);
      expect((await cli(dir, [...local, 'synced', 'import', 'after-A.json'])).code).toBe(0);
      expect((await cli(dir, [...local, 'synced', 'adopt', '--file', 'B.csv'])).code).toBe(0);
      expectRefused(await night(dir, 'A-reordered.csv'));
    }));
});
