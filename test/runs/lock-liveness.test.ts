import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownStartTicks, processAlive } from '../../src/system/process-liveness.js';
import { RunJournal } from '../../src/runs/run-journal.js';
import { resolveRunId, runState } from '../../src/runs/read-run.js';
import { readRun } from './whole-record.js';
import { header, ref, tempRunsDir } from './helpers.js';

/**
 * A killed run whose process is not reaped yet (a zombie), or whose pid now belongs to another
 * process, is interrupted, not running: `runs list` says so and `runs resume` takes it.
 */

let runsDir: string;
let cleanup: () => void;
let parent: ChildProcess | undefined;
beforeEach(() => ({ dir: runsDir, cleanup } = tempRunsDir()));
afterEach(() => {
  parent?.kill('SIGKILL');
  parent = undefined;
  cleanup();
});

const linux = process.platform === 'linux';

function stateOf(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * A zombie: a shell starts a short child then becomes `sleep`, which never reaps it. Resolves
 * with the zombie's pid once /proc shows it in state Z.
 */
async function zombiePid(): Promise<number> {
  parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) =>
    parent!.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
  );
  for (let waited = 0; stateOf(pid) !== 'Z'; waited += 10) {
    if (waited > 5000) throw new Error(`pid ${pid} never became a zombie (state ${stateOf(pid)})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return pid;
}

function writeLock(runDirPath: string, info: { pid: number; started?: number }): void {
  const lock = {
    ...info,
    host: hostname(),
    command: 'examctl user sync',
    since: new Date().toISOString(),
    token: `${info.pid}-test`,
  };
  writeFileSync(join(runDirPath, 'LOCK'), `${JSON.stringify(lock)}\n`);
}

async function interruptedRunHeldBy(info: { pid: number; started?: number }): Promise<string> {
  const journal = await RunJournal.start(runsDir, header());
  await journal.sent([ref(0)]);
  await journal.close();
  writeLock(join(runsDir, journal.id), info);
  return journal.id;
}

describe.runIf(linux)('process liveness (/proc)', () => {
  it('a zombie is dead, this process is alive, and a recorded start time must match', async () => {
    const zombie = await zombiePid();
    expect(processAlive(zombie)).toBe(false);
    expect(processAlive(process.pid)).toBe(true);
    const started = ownStartTicks();
    expect(started).toEqual(expect.any(Number));
    expect(processAlive(process.pid, started)).toBe(true);
    expect(processAlive(process.pid, (started as number) + 1)).toBe(false);
  });
});

describe.runIf(linux)('the lock of a run whose process is a zombie or another process', () => {
  it('a zombie holder: the run is interrupted, the default resume picks it and takes its lock', async () => {
    const id = await interruptedRunHeldBy({ pid: await zombiePid() });
    expect(await runState(runsDir, await readRun(runsDir, id))).toBe('interrupted');
    expect(await resolveRunId(runsDir, 'unfinished')).toBe(id);
    const held = await RunJournal.lockForResume(runsDir, id);
    await held.release();
  });

  it('a pid now used by a process started later (another start time) is not the holder', async () => {
    const id = await interruptedRunHeldBy({ pid: process.pid, started: (ownStartTicks() as number) - 1 });
    expect(await runState(runsDir, await readRun(runsDir, id))).toBe('interrupted');
    const held = await RunJournal.lockForResume(runsDir, id);
    await held.release();
  });

  it('a live holder with its own start time still holds the run', async () => {
    const id = await interruptedRunHeldBy({ pid: process.pid, started: ownStartTicks() as number });
    expect(await runState(runsDir, await readRun(runsDir, id))).toBe('running');
    await expect(RunJournal.lockForResume(runsDir, id)).rejects.toThrow(/is being run by pid/);
  });

  it('a lock taken by examctl records the start time of its process', async () => {
    const journal = await RunJournal.start(runsDir, header());
    const lock = JSON.parse(readFileSync(join(runsDir, journal.id, 'LOCK'), 'utf8')) as {
      pid: number;
      started?: number;
    };
    expect(lock).toMatchObject({ pid: process.pid, started: ownStartTicks() });
    await journal.close();
  });
});
