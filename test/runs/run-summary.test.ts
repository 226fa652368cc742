import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';

/** Issue 37: `runs list` reads a finished run's header and end lines, not its whole journal (docs/runs.md, "Run summaries"). */
let dir: string;
let env: Record<string, string>;
const runsDir = (): string => join(dir, 'runs');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-run-summary-'));
  env = { EXAMCTL_RUNS_DIR: runsDir(), EXAMCTL_STORE: join(dir, 'store') };
  cpSync(join(ROOT, 'fixtures/users-with-errors.csv'), join(dir, 'users.csv'));
  expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Listing = {
  runs: { id: string; state: string; summary: Record<string, number>; command: string; endedAt?: string }[];
  unreadable: unknown[];
};
const list = async (): Promise<Listing> =>
  JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as Listing;

describe('run summaries', () => {
  it('a finished run is listed from its end line: the same listing as from the journal, and no journal line between the header and the end is read', async () => {
    const run = await examctl(['--json', 'user', 'sync', '--file', 'users.csv'], dir, env);
    const { run: id, summary } = JSON.parse(run.stdout) as { run: string; summary: Record<string, number> };
    const journal = join(runsDir(), id, 'journal.ndjson');
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({
      b: { t: 'end', reason: 'completed', summary: { total: summary.total, ok: summary.ok } },
    });
    expect(existsSync(join(runsDir(), id, 'summary.json'))).toBe(false);
    const fromEnd = await list();
    expect(fromEnd.runs).toEqual([
      expect.objectContaining({
        id,
        state: 'finished',
        summary: {
          total: summary.total,
          ok: summary.ok,
          partial: summary.partial,
          failed: summary.failed,
          skipped: summary.skipped,
        },
      }),
    ]);
    // The journal's lines between the header and the end damaged: the listing does not change
    // (those lines were not read), while `runs show`, which reads them, refuses the damage.
    const text = readFileSync(journal, 'utf8');
    const headerEnd = text.indexOf('\n') + 1;
    const endStart = text.lastIndexOf('\n', text.length - 2) + 1;
    writeFileSync(
      journal,
      text.slice(0, headerEnd) +
        text.slice(headerEnd, endStart).replace(/"crc":"[0-9a-f]{8}"/g, '"crc":"00000000"') +
        text.slice(endStart),
    );
    expect(await list()).toEqual(fromEnd);
    expect((await examctl(['runs', 'show', id], dir, env)).code).toBe(2);
    // Restored: the same listing.
    writeFileSync(journal, text);
    expect(await list()).toEqual(fromEnd);
  });

  it('a journal whose last line is not its end (a torn line appended since) is read whole, never listed from the end line alone', async () => {
    const run = await examctl(['--json', 'user', 'sync', '--file', 'users.csv'], dir, env);
    const { run: id } = JSON.parse(run.stdout) as { run: string };
    const journal = join(runsDir(), id, 'journal.ndjson');
    const text = readFileSync(journal, 'utf8');
    // A torn line appended: listed finished, read whole (the torn line ignored).
    appendFileSync(journal, '{"crc":"0');
    const listed = await list();
    expect(listed.runs[0]?.state).toBe('finished');
    // Read whole, a damaged line in the middle is met: the run is named unreadable, not listed from its end line.
    const headerEnd = text.indexOf('\n') + 1;
    writeFileSync(
      journal,
      `${text.slice(0, headerEnd)}${text.slice(headerEnd).replace(/"crc":"[0-9a-f]{8}"/, '"crc":"00000000"')}{"crc":"0`,
    );
    const damaged = await list();
    expect(damaged.runs).toEqual([]);
    expect(damaged.unreadable).toEqual([expect.objectContaining({ id })]);
  });
});
