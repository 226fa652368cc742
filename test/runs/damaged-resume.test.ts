import { cpSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { ROOT } from '../support/cli.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { lineWith } from '../support/facts.js';

/**
 * Trial 16 (f04, f03): a journal examctl cannot read is never passed over by `runs resume`
 * (no id) as if there were no run to finish, and a journal line that contradicts the unchanged
 * input is damage (exit 2 naming the journal), not an internal error.
 */
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-damaged-resume-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_STORE: join(dir, 'store') };
  cpSync(join(ROOT, 'fixtures/users.csv'), join(dir, 'users.csv'));
  expect((await examctl(['local', 'init'], dir, env)).code).toBe(0);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A finished run, then a second one cut to its first `lines` journal lines (killed: interrupted); its journal's path. */
async function interruptedRun(lines: number): Promise<{ id: string; journal: string }> {
  expect((await examctl(['--yes', 'user', 'sync', '--file', 'users.csv'], dir, env)).code).toBe(0);
  const run = await examctl(['--yes', '--json', 'user', 'sync', '--file', 'users.csv'], dir, env);
  const id = (JSON.parse(run.stdout) as { run: string }).run;
  const journal = join(dir, 'runs', id, 'journal.ndjson');
  writeFileSync(journal, readFileSync(journal, 'utf8').split('\n').slice(0, lines).join('\n') + '\n');
  return { id, journal };
}

/** Line `n` (1-based) of the journal rewritten by `edit` (`resign`: its checksum made to hold again). */
function editLine(journal: string, n: number, edit: (line: string) => string, resign = false): void {
  const lines = readFileSync(journal, 'utf8').split('\n');
  const edited = edit(resign ? JSON.stringify((JSON.parse(lines[n - 1]!) as { b: unknown }).b) : lines[n - 1]!);
  lines[n - 1] = resign ? encodeChecksummedLine(edited).trimEnd() : edited;
  writeFileSync(journal, lines.join('\n'));
}

describe('runs resume of a damaged journal', () => {
  it('the newest run interrupted, one line damaged: runs resume (no id) refuses it, exit 2 naming the journal and line; runs list has a row saying so', async () => {
    const { id, journal } = await interruptedRun(8);
    expect((await examctl(['runs', 'list'], dir, env)).stdout).toMatch(new RegExp(`^${id}  interrupted `));
    editLine(journal, 5, (line) => line.replace('"id":"stu-', '"id":"stX-'));
    const resumed = await examctl(['--yes', 'runs', 'resume'], dir, env);
    expect(resumed.code).toBe(2);
    expectCoded(resumed.stderr, 'E2200', `${journal}:5:`, 'checksum mismatch');
    const json = await examctl(['--yes', '--json', 'runs', 'resume'], dir, env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { exitCode: 2, message: expect.stringContaining(`${journal}:5: run journal damaged`) as string },
    });
    const listed = await examctl(['runs', 'list'], dir, env);
    expect(listed.stdout).toMatch(
      new RegExp(`\\n${id}  unreadable   ${journal}:5: run journal damaged: checksum mismatch`),
    );
  });

  it('a damaged run older than a finished one is refused too; a newer run that never wrote its header is still passed over', async () => {
    const { journal } = await interruptedRun(8);
    editLine(journal, 1, (line) => line.replace(/"crc":"[0-9a-f]{8}"/, '"crc":"00000000"'));
    expect((await examctl(['--yes', 'user', 'sync', '--file', 'users.csv'], dir, env)).code).toBe(0);
    mkdirSync(join(dir, 'runs', '20991231T000000.000Z-beef'));
    writeFileSync(join(dir, 'runs', '20991231T000000.000Z-beef', 'journal.ndjson'), '{"crc":"0');
    const resumed = await examctl(['--yes', 'runs', 'resume'], dir, env);
    expect(resumed.code).toBe(2);
    expectCoded(resumed.stderr, 'E2200', `${journal}:1:`, 'checksum mismatch');
    // Moved aside, as the refusal says: nothing to resume, exit 0.
    renameSync(join(journal, '..'), join(dir, 'aside'));
    const after = await examctl(['--yes', 'runs', 'resume'], dir, env);
    expect(after.code).toBe(0);
    expect(after.stderr).toContain('no interrupted run to resume');
  });

  // trial18 f01: the id holds the run's start, so --since leaves out a run started before it, readable or not.
  it('runs list --since after an unreadable run started: no row for it, and the "no runs since" sentence', async () => {
    const { id, journal } = await interruptedRun(8);
    editLine(journal, 5, (line) => line.replace('"id":"stu-', '"id":"stX-'));
    mkdirSync(join(dir, 'runs', '20200101T000000.000Z-beef'));
    writeFileSync(join(dir, 'runs', '20200101T000000.000Z-beef', 'journal.ndjson'), '');
    const later = await examctl(['runs', 'list', '--since', '2099-01-01T00:00:00Z'], dir, env);
    expect(later.stdout).toBe('');
    expect(later.stderr).toContain(`no runs since 2099-01-01T00:00:00.000Z in ${join(dir, 'runs')} (3 older)`);
    const since2021 = await examctl(['runs', 'list', '--since', '2021-01-01T00:00:00Z'], dir, env);
    expect(lineWith(since2021.stdout, `${journal}:5: `)).toMatch(new RegExp(`^${id} +unreadable `));
    expect(since2021.stdout).not.toContain('20200101T000000.000Z-beef');
  });

  it('a line whose checksum holds but names another id than the unchanged input: exit 2 run journal damaged, nothing sent', async () => {
    const { journal } = await interruptedRun(8);
    editLine(journal, 5, (body) => body.replace(/"id":"stu-\d+"/, '"id":"__proto__"'), true);
    const store = readdirSync(join(dir, 'store')).map((name) => readFileSync(join(dir, 'store', name), 'utf8'));
    const resumed = await examctl(['--yes', 'runs', 'resume'], dir, env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `${journal}:byte \\d+: run journal damaged: item \\d+ is line \\d+ \\(__proto__\\) here but line \\d+ \\(stu-\\d+\\) of the unchanged input`,
      ),
    );
    expect(resumed.stderr).not.toContain('internal error');
    expect(readdirSync(join(dir, 'store')).map((name) => readFileSync(join(dir, 'store', name), 'utf8'))).toEqual(
      store,
    );
  });
});
