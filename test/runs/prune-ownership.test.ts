import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { StringSink } from '../support/string-sink.js';
import { pruneRuns, RunJournal, type RunTrust } from '../../src/runs/index.js';
import { pruneRefusal, type EntryStat } from '../../src/runs/prune-ownership.js';
import { header, tempRunsDir } from './helpers.js';

/**
 * Issue 22 (left alone then): `runs prune` removes only what is plainly the user's run: a real
 * directory the user owns holding only regular files the user owns. A symbolic link planted in
 * the runs directory is never followed out of it, another user's run is never touched; both are
 * left alone and said.
 */

const ME = (process.getuid?.() ?? 0) as number;
/** Tests run as root: "another user" is played by giving prune another uid as the user's own. */
const OTHER_USER: RunTrust = { uid: ME + 4242 };
const POLICY = { maxAgeDays: 30, keepFinished: 100, all: true };
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
  const journal = await RunJournal.start(runsDir, header(), undefined, new Date(`2026-03-${String(day).padStart(2, '0')}T00:00:00Z`));
  await journal.end('completed', { total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
  return journal.id;
}

function fakeStat(kind: 'file' | 'directory' | 'link' | 'fifo', uid: number): EntryStat {
  return {
    uid,
    isFile: () => kind === 'file',
    isDirectory: () => kind === 'directory',
    isSymbolicLink: () => kind === 'link',
    isFIFO: () => kind === 'fifo',
    isCharacterDevice: () => false,
    isBlockDevice: () => false,
    isSocket: () => false,
  };
}

describe('the ownership predicate', () => {
  it('accepts only the wanted kind owned by the current user; without uids (Windows) only the kind counts', () => {
    const me: RunTrust = { uid: 1000 };
    expect(pruneRefusal(fakeStat('directory', 1000), 'directory', me)).toBeUndefined();
    expect(pruneRefusal(fakeStat('file', 1000), 'file', me)).toBeUndefined();
    expect(pruneRefusal(fakeStat('directory', 1001), 'directory', me)).toBe('owned by uid 1001, not by you');
    expect(pruneRefusal(fakeStat('file', 0), 'file', me)).toBe('owned by uid 0, not by you');
    expect(pruneRefusal(fakeStat('link', 1000), 'directory', me)).toBe('a symbolic link, not a directory');
    expect(pruneRefusal(fakeStat('fifo', 1000), 'file', me)).toBe('a FIFO, not a regular file');
    expect(pruneRefusal(fakeStat('directory', 1001), 'directory', { uid: undefined })).toBeUndefined();
    expect(pruneRefusal(fakeStat('link', 1001), 'directory', { uid: undefined })).toBe('a symbolic link, not a directory');
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
    expect(result.leftAlone).toEqual([{ id: planted, reason: 'a symbolic link, not a directory' }]);
    expect(lstatSync(join(runsDir, planted)).isSymbolicLink()).toBe(true);
    // No file removed there, and no LOCK left behind by a lock taken through the link.
    expect(readdirSync(outside).sort()).toEqual(before);
    expect(readFileSync(join(outside, 'journal.ndjson'))).toEqual(journal);
  });

  it('a run directory holding a symbolic link to a file outside: the run is left alone, the file survives', async () => {
    const id = await oldRun(3);
    const precious = join(root, 'precious.txt');
    writeFileSync(precious, 'keep me\n');
    symlinkSync(precious, join(runsDir, id, 'extra'));

    const result = await pruneRuns(runsDir, POLICY, NOW);
    expect(result.removed).toEqual([]);
    expect(result.leftAlone).toEqual([{ id, reason: 'extra is a symbolic link, not a regular file' }]);
    expect(readFileSync(precious, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(runsDir, id, 'journal.ndjson'))).toBe(true);
  });

  it('runs owned by another uid are never removed nor read; the CLI says how many it left and why', async () => {
    const first = await oldRun(4);
    const second = await oldRun(5);
    const result = await pruneRuns(runsDir, POLICY, NOW, OTHER_USER);
    expect(result.removed).toEqual([]);
    expect(result.leftAlone.map((entry) => entry.id).sort()).toEqual([first, second].sort());
    expect(result.leftAlone[0]?.reason).toBe(`owned by uid ${ME}, not by you`);
    expect(readdirSync(runsDir).sort()).toEqual([first, second].sort());

    const stdout = new StringSink();
    const stderr = new StringSink();
    const code = await runCli(['runs', 'prune', '--all', '--older-than', '1d'], { stdout, stderr, env: { EXAMCTL_RUNS_DIR: runsDir }, now: () => NOW, isTTY: false, cwd: root, runTrust: OTHER_USER });
    expect(code).toBe(0);
    expect(stderr.text).toContain('removed 0 runs');
    expect(stderr.text).toContain('left 2 entries not owned by you (or not a plain run directory) alone:');
    expect(stderr.text).toContain(`  ${first}: owned by uid ${ME}, not by you`);
    expect(readdirSync(runsDir)).toHaveLength(2);
  });

  it('a runs dir others can write without the sticky bit: nothing pruned (a checked run could be swapped for a link); with the sticky bit the user’s runs go', async () => {
    const id = await oldRun(6);
    chmodSync(runsDir, 0o777);
    await expect(pruneRuns(runsDir, POLICY, NOW)).rejects.toThrow(/writable by others without the sticky bit \(mode 777\): nothing pruned/);
    expect(existsSync(join(runsDir, id))).toBe(true);
    chmodSync(runsDir, 0o1777);
    mkdirSync(join(runsDir, 'not-a-run'));
    expect((await pruneRuns(runsDir, POLICY, NOW)).removed).toEqual([id]);
    expect(readdirSync(runsDir)).toEqual(['not-a-run']);
  });
});
