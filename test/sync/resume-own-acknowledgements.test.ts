import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir } from '../corpus/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';

/**
 * A run whose requests were acknowledged (the sync memory holds them, as this run's) but whose
 * journal lost their outcome lines (a full disk: trial9 f06): its resume does not send them
 * again, and reports them as this run's work, `sent` with a note, never "unchanged since run
 * <itself>" (docs/runs.md, "runs resume").
 */
describe("a resume judging rows against its own run's acknowledgements", () => {
  it('reports them sent by this run, live and in runs show, with its input and without it', async () => {
    await inTempDir(async (dir) => {
      const input = join(dir, 'u.csv');
      const rows = ['ExternalId,FirstName,LastName,Email,Role'];
      for (let i = 0; i < 5; i++) rows.push(`own-${i},Ann,Lee,own-${i}@example.test,Candidate`);
      writeFileSync(input, `${rows.join('\n')}\n`);
      const store = join(dir, 's');
      const first = await examctl(['user', 'sync', '--file', input, '--changed-only', '--store', store, '--json'], dir);
      expect(first.code, first.stderr).toBe(0);
      const run = (JSON.parse(first.stdout) as { run: string }).run;
      // Its outcome lines and end lost: the journal ends after the sent lines, as a full disk leaves it.
      const journal = join(dir, '.local', 'state', 'examctl', 'runs', run, 'journal.ndjson');
      const lines = readFileSync(journal, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !/"t":"(outcome|end)"/.test(line));
      writeFileSync(journal, `${lines.join('\n')}\n`);
      const resumed = await examctl(['runs', 'resume', run, '--json'], dir);
      expect(resumed.code, resumed.stderr).toBe(0);
      const own = /^acknowledged to the interrupted attempt of this run/;
      for (const report of [resumed, await examctl(['runs', 'show', run, '--json'], dir)]) {
        const items = (JSON.parse(report.stdout) as { items: { action?: string; note?: string }[] }).items;
        expect(items.map((item) => item.action)).toEqual(Array(5).fill('sent'));
        for (const item of items) expect(item.note).toMatch(own);
      }
      // Its input gone (the next night's export): still listed, by the journal alone, never
      // counted among the unchanged rows it cannot name (flake41: 6 such rows missing).
      renameSync(input, join(dir, 'gone.csv'));
      const blind = await examctl(['runs', 'show', run, '--json'], dir);
      expect(blind.code, blind.stderr).toBe(0);
      const shown = JSON.parse(blind.stdout) as {
        items: { id: string; action?: string; note?: string }[];
        unlistedUnchanged?: unknown;
      };
      expect(shown.items.map((item) => [item.id, item.action])).toEqual(
        [0, 1, 2, 3, 4].map((i) => [`own-${i}`, 'sent']),
      );
      for (const item of shown.items) expect(item.note).toMatch(own);
      expect(shown.unlistedUnchanged).toBeUndefined();
      expect(blind.stderr).not.toContain('unchanged');
    });
  });
});
