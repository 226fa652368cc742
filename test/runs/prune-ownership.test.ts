import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from '../support/string-sink.js';
import { pruneRuns } from '../../src/runs/read-run.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { type RunTrust } from '../../src/runs/run-trust.js';
import { header, tempRunsDir } from './helpers.js';

/**
 * Issue 22 (left alone then): `runs prune` removes only the user's runs, judged as `runs
 * list|show|resume` judge them (run-trust.ts), in a runs directory that passes the trust rule:
 * a symbolic link planted as a run is never followed out of it, another user's run is never
 * touched; both are left alone and said. In a runs directory others can write it prunes nothing.
 */

const ME = (process.getuid?.() ?? 0) as number;
/** Tests run as root: "another user" is played by giving prune another uid as the user's own. */
const OTHER_USER: RunTrust = { uid: ME + 4242 };
/** The default age and count, interrupted runs too. */
const POLICY = { all: true };
const NOW = new Date('2026-06-01T00:00:00Z');

let runsDir: string;
let root: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir: runsDir, cleanup } = tempRunsDir());
  root = join(runsDir, '..');
});
afterEach(() => cleanup());

/** A finished run started long ago: past every retention, prune removes it when it is the user's. */
async function oldRun(day: number): Promise<string> {
  const journal = await RunJournal.start(
    runsDir,
    header(),
    undefined,
    new Date(`2026-03-${String(day).padStart(2, '0')}T00:00:00Z`),
  );
  await journal.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
  return journal.id;
}

describe('the run judged as runs list judges it', () => {
  it('a run directory group or others can write is left alone and named, the user’s other runs go', async () => {
    const mine = await oldRun(7);
    const loose = await oldRun(8);
    chmodSync(join(runsDir, loose), 0o777);
    const result = await pruneRuns(runsDir, POLICY, NOW);
    expect(result.removed).toEqual([mine]);
    expect(result.leftAlone).toEqual([
      {
        id: loose,
        reason: `the run directory ${join(runsDir, loose)} is writable by others (mode 777): anyone who can write there could plant a run; chmod go-w ${join(runsDir, loose)}`,
      },
    ]);
    expect(existsSync(join(runsDir, loose, 'journal.ndjson'))).toBe(true);
  });
});

describe('runs prune leaves alone what is not plainly the user’s run', () => {
  it('a symbolic link planted as a run points out of the runs dir: never followed, the target survives untouched, the link is left and named', async () => {
    const mine = await oldRun(1);
    // A copy of a real old run, outside the runs dir, linked in under a run id.
    const outside = join(root, 'victim');
    const planted = await oldRun(2);
    renameSync(join(runsDir, planted), outside);
    symlinkSync(outside, join(runsDir, planted));
    const before = readdirSync(outside).sort();
    const journal = readFileSync(join(outside, 'journal.ndjson'));

    const result = await pruneRuns(runsDir, POLICY, NOW);
    expect(result.removed).toEqual([mine]);
    expect(result.leftAlone).toEqual([
      { id: planted, reason: `${join(runsDir, planted)} is not a directory (a symbolic link)` },
    ]);
    expect(lstatSync(join(runsDir, planted)).isSymbolicLink()).toBe(true);
    // No file removed there, and no LOCK left behind by a lock taken through the link.
    expect(readdirSync(outside).sort()).toEqual(before);
    expect(readFileSync(join(outside, 'journal.ndjson'))).toEqual(journal);
  });

  it('a run directory holding a symbolic link to a file outside: the link goes with the run, never followed; the file survives', async () => {
    const id = await oldRun(3);
    const precious = join(root, 'precious.txt');
    writeFileSync(precious, 'keep me\n');
    symlinkSync(precious, join(runsDir, id, 'extra'));

    const result = await pruneRuns(runsDir, POLICY, NOW);
    expect(result.removed).toEqual([id]);
    expect(result.leftAlone).toEqual([]);
    expect(readFileSync(precious, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(runsDir, id))).toBe(false);
  });

  it('runs owned by another uid are never removed nor read; the CLI says how many it left and why', async () => {
    const first = await oldRun(4);
    const second = await oldRun(5);
    const result = await pruneRuns(runsDir, POLICY, NOW, OTHER_USER);
    expect(result.removed).toEqual([]);
    expect(result.leftAlone.map((entry) => entry.id).sort()).toEqual([first, second].sort());
    expect(result.leftAlone[0]?.reason).toContain(
      `the run directory ${join(runsDir, result.leftAlone[0]?.id ?? '')} is owned by uid ${ME}, not by you (uid ${ME + 4242})`,
    );
    expect(readdirSync(runsDir).sort()).toEqual([first, second].sort());

    const stdout = new StringSink();
    const stderr = new StringSink();
    const code = await runCli(['runs', 'prune', '--all', '--older-than', '1d'], {
      stdout,
      stderr,
      env: { EXAMCTL_RUNS_DIR: runsDir },
      now: () => NOW,
      isTTY: false,
      cwd: root,
      runTrust: OTHER_USER,
    });
    expect(code).toBe(0);
    expect(stderr.text).toContain('removed 0 runs');
    expect(lineWith(stderr.text, 'left 2 entries', 'not owned by you')).toBeTruthy();
    expect(stderr.text).toContain(
      `  ${first}: the run directory ${join(runsDir, first)} is owned by uid ${ME}, not by you (uid ${ME + 4242})`,
    );
    expect(readdirSync(runsDir)).toHaveLength(2);
  });

  it('a runs dir others can write, with the sticky bit or without: nothing pruned (exit 2 from the CLI), as list, show and resume use nothing there', async () => {
    const id = await oldRun(6);
    chmodSync(runsDir, 0o777);
    await expect(pruneRuns(runsDir, POLICY, NOW)).rejects.toThrow(
      /the runs directory \S+ is writable by others \(mode 777\); chmod go-w \S+; nothing pruned/,
    );
    chmodSync(runsDir, 0o1777);
    await expect(pruneRuns(runsDir, POLICY, NOW)).rejects.toThrow(/writable by others \(mode 1777\).*; nothing pruned/);
    const stderr = new StringSink();
    const code = await runCli(['runs', 'prune', '--all', '--older-than', '1d'], {
      stdout: new StringSink(),
      stderr,
      env: { EXAMCTL_RUNS_DIR: runsDir },
      now: () => NOW,
      isTTY: false,
      cwd: root,
    });
    expect(code).toBe(2);
    expect(stderr.text).toContain('nothing pruned');
    expect(existsSync(join(runsDir, id))).toBe(true);
    chmodSync(runsDir, 0o700);
    mkdirSync(join(runsDir, 'not-a-run'));
    expect((await pruneRuns(runsDir, POLICY, NOW)).removed).toEqual([id]);
    expect(readdirSync(runsDir)).toEqual(['not-a-run']);
  });
});
