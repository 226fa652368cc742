import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryOf } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/** `runs list --since`: runs started at or after a date, an instant or an age counted back from the command's clock. */

const NOW = '2026-11-21T10:00:00Z';
const STARTS = ['2026-10-15T08:00:00Z', '2026-11-01T00:00:00Z', '2026-11-20T10:00:00Z'];

/** One journaled run per start time, in a runs directory of `dir`; their ids, oldest first. */
async function plantRuns(dir: string): Promise<string[]> {
  const ids: string[] = [];
  for (const start of STARTS) {
    const header = {
      command: 'user sync',
      options: { file: '-' },
      target: { kind: 'local' as const, store: join(dir, 'store') },
      input: null,
    };
    const journal = await RunJournal.start(join(dir, 'runs'), header, undefined, new Date(start));
    await journal.close();
    ids.push(journal.id);
  }
  return ids;
}

async function list(dir: string, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, { now: () => new Date(NOW) }, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['runs', 'list', ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const listedIds = (stdout: string): string[] =>
  (JSON.parse(stdout) as { runs: { id: string }[] }).runs.map((run) => run.id);

describe('runs list --since', () => {
  it.each([
    ['2026-11-01', [1, 2]],
    ['2026-11-01T01:00:00+01:00', [1, 2]],
    ['2026-11-01T00:00:00.001Z', [2]],
    ['7d', [2]],
    ['24h', [2]],
    ['23h', []],
    ['60d', [0, 1, 2]],
  ])('--since %s lists the runs started at or after it', (since, expected) =>
    withTempDir(async (dir) => {
      const ids = await plantRuns(dir);
      const listed = await list(dir, '--since', since, '--json');
      expect(listed.code).toBe(0);
      expect(listedIds(listed.stdout)).toEqual(expected.map((index) => ids[index]).reverse());
    }),
  );

  it('without --since every run is listed; the human list is filtered the same way', () =>
    withTempDir(async (dir) => {
      const ids = await plantRuns(dir);
      expect(listedIds((await list(dir, '--json')).stdout)).toEqual([...ids].reverse());
      const human = await list(dir, '--since', '2026-11-01');
      expect(
        human.stdout
          .trim()
          .split('\n')
          .map((line) => line.split(' ')[0]),
      ).toEqual([ids[2], ids[1]]);
    }));

  it.each(['30', 'last week', '2026-11-01T09:00:00'])(
    'refuses --since %j with exit 2, naming the flag, listing nothing',
    (since) =>
      withTempDir(async (dir) => {
        await plantRuns(dir);
        const refused = await list(dir, '--since', since);
        expect(refused.code).toBe(2);
        expectCoded(refused.stderr, 'E2001', '--since', '7d');
        expect(refused.stdout).toBe('');
      }),
  );
  it('--since that leaves every run out says so, with how many are older (not "no runs")', () =>
    withTempDir(async (dir) => {
      await plantRuns(dir);
      const none = await list(dir, '--since', '2026-11-21');
      expect(none.code).toBe(0);
      expect(none.stdout).toBe('');
      expect(none.stderr).toBe(`no runs since 2026-11-21T00:00:00.000Z in ${join(dir, 'runs')} (3 older)\n`);
      expect((await list(join(dir, 'empty'))).stderr).toMatch(/^no runs in \S+\n$/);
    }));

  it('a run of one item reads "1 item", of none "0 items"', () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\n',
      );
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(
        await runCli(
          ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv'],
          io.deps,
        ),
      ).toBe(0);
      expect(summaryOf((await list(dir)).stdout)).toMatchObject({ total: 1, ok: 1, partial: 0, failed: 0, skipped: 0 });
      await plantRuns(dir);
      expect((await list(dir)).stdout).toMatch(/ 0 items: 0 ok/);
    }));
});
