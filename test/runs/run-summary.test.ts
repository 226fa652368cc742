import { cpSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';

/** Issue 37: `runs list` reads a finished run's summary and header line, not its whole journal (docs/runs.md, "Run summaries"). */
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

type Listing = { runs: { id: string; state: string; summary: Record<string, number>; command: string; endedAt?: string }[]; unreadable: unknown[] };
const list = async (): Promise<Listing> => JSON.parse((await examctl(['--json', 'runs', 'list'], dir, env)).stdout) as Listing;

describe('run summaries', () => {
  it('a finished run is listed from its summary: the same listing as from the journal, and no journal line past the header is read', async () => {
    const run = await examctl(['--json', 'user', 'sync', '--file', 'users.csv'], dir, env);
    const { run: id, summary } = JSON.parse(run.stdout) as { run: string; summary: Record<string, number> };
    const journal = join(runsDir(), id, 'journal.ndjson');
    const written = JSON.parse(readFileSync(join(runsDir(), id, 'summary.json'), 'utf8')) as { journalBytes: number; reason: string };
    expect(written).toMatchObject({ journalBytes: readFileSync(journal).length, reason: 'completed' });
    const fromSummary = await list();
    expect(fromSummary.runs).toEqual([expect.objectContaining({ id, state: 'finished', summary: { total: summary.total, ok: summary.ok, partial: summary.partial, failed: summary.failed, skipped: summary.skipped } })]);
    // The journal's lines after the header damaged, its length kept: the listing does not change
    // (those lines were not read), while `runs show`, which reads them, refuses the damage.
    const text = readFileSync(journal, 'utf8');
    const headerEnd = text.indexOf('\n') + 1;
    writeFileSync(journal, text.slice(0, headerEnd) + text.slice(headerEnd).replace(/"crc":"[0-9a-f]{8}"/g, '"crc":"00000000"'));
    expect(await list()).toEqual(fromSummary);
    expect((await examctl(['runs', 'show', id], dir, env)).code).toBe(2);
    // Restored, without its summary: rebuilt from the journal, the same listing.
    writeFileSync(journal, text);
    rmSync(join(runsDir(), id, 'summary.json'));
    expect(await list()).toEqual(fromSummary);
  });

  it('a journal longer than its summary says (appended to since) is read whole, never listed from the stale summary', async () => {
    const run = await examctl(['--json', 'user', 'sync', '--file', 'users.csv'], dir, env);
    const { run: id } = JSON.parse(run.stdout) as { run: string };
    // A torn line appended: the journal no longer matches its summary.
    appendFileSync(join(runsDir(), id, 'journal.ndjson'), '{"crc":"0');
    const summaryFile = join(runsDir(), id, 'summary.json');
    const stale = JSON.parse(readFileSync(summaryFile, 'utf8')) as { summary: Record<string, number> };
    writeFileSync(summaryFile, JSON.stringify({ ...stale, summary: { ...stale.summary, ok: 999 } }));
    const listed = await list();
    expect(listed.runs[0]?.summary.ok).not.toBe(999);
    expect(listed.runs[0]?.state).toBe('finished');
  });
});
