import { execFileSync } from 'node:child_process';
import { constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { BIN, examctl } from '../support/cli.js';

/**
 * Issue 22 (2c): only regular files are opened from the runs dir, the store and the config: a
 * FIFO planted there is refused naming it, never a hang. `--file` naming a FIFO (or a process
 * substitution) is read once like `--file -`, and a wait for its writer ends at once on SIGTERM.
 * Every case runs the built CLI: a hang would be the test's timeout, not a pass.
 */

let dir: string;
const USERS =
  'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\nu-2,Bo,Lee,u-2@example.test,Candidate\n';
const mkfifo = (path: string): void => void execFileSync('mkfifo', [path]);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-special-'));
  writeFileSync(join(dir, 'users.csv'), USERS);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--file naming a pipe', () => {
  it('a FIFO with no writer and no terminal to start one from: exit 2 naming it at once, nothing read or made', async () => {
    mkfifo(join(dir, 'in.csv'));
    const done = await examctl(
      ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'in.csv'],
      dir,
      { EXAMCTL_RUNS_DIR: join(dir, 'runs') },
    );
    expect(done.code).toBe(2);
    expectCoded(done.stderr, 'E2102', '--file: in.csv', 'FIFO', 'no writer');
    expect(existsSync(join(dir, 'store'))).toBe(false);
  });

  it('a FIFO fed by a writer is read once like --file -, under its own name, and journaled as not resumable', async () => {
    mkfifo(join(dir, 'in.csv'));
    // The writer is there before examctl starts: a reader of our own (never read) keeps the pipe
    // and its bytes alive after the writer closes, so nothing depends on who opens first.
    const keeper = await open(join(dir, 'in.csv'), constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = await open(join(dir, 'in.csv'), 'w');
    await writer.writeFile(USERS);
    await writer.close();
    const done = await examctl(
      ['--target', 'local', '--store', join(dir, 'store'), '--json', 'user', 'sync', '--file', 'in.csv'],
      dir,
      { EXAMCTL_RUNS_DIR: join(dir, 'runs') },
    );
    await keeper.close();
    expect(done.code, done.stderr).toBe(0);
    const report = JSON.parse(done.stdout) as {
      summary: { ok: number };
      run: string;
      items: { source: { file: string } }[];
    };
    expect(report.summary.ok).toBe(2);
    expect(report.items[0]?.source.file).toBe('in.csv');
    // Journaled as read from a pipe: a resume could not read it again (run-resume.test.ts refuses such an interrupted run).
    const header = JSON.parse(
      readFileSync(join(dir, 'runs', report.run, 'journal.ndjson'), 'utf8').split('\n')[0]!,
    ) as { b: { options: { file: string } } };
    expect(header.b.options.file).toBe('-');
    // Finished, it has nothing to resume: its report again, nothing read or sent.
    const resumed = await examctl(['runs', 'resume', report.run], dir, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
    expect(resumed.code).toBe(0);
    expect(lineWith(resumed.stderr, `run ${report.run} `, 'nothing to resume')).toBeTruthy();
  });

  it('a process substitution <(...) is read like --file -', () => {
    const out = execFileSync(
      'bash',
      [
        '-c',
        `"${process.execPath}" "${BIN}" --target local --store store --dry-run user sync --file <(cat users.csv) 2>&1; echo "exit $?"`,
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir, EXAMCTL_CONFIG_DIR: join(dir, '.config') },
        encoding: 'utf8',
      },
    );
    expect(out).toMatch(/2 valid/);
    expect(out).toMatch(/exit 0\n$/);
  });
});

describe('--file naming a device or a socket', () => {
  it('/dev/tty, /dev/zero, /dev/urandom: exit 2 naming it, before anything is read or the store and runs dir touched', async () => {
    for (const device of ['/dev/tty', '/dev/zero', '/dev/urandom']) {
      const run = await examctl(
        ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', device],
        dir,
        { EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      expect(run.code, run.stderr).toBe(2);
      expectCoded(run.stderr, 'E2102', `--file: ${device}`, 'device');
      expect(existsSync(join(dir, 'store'))).toBe(false);
      expect(existsSync(join(dir, 'runs'))).toBe(false);
    }
  });

  it('a socket file: exit 2 naming it (it cannot be opened; never a hang)', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'in.sock'), resolve));
    try {
      const run = await examctl(
        ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'in.sock'],
        dir,
        { EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      expect(run.code, run.stderr).toBe(2);
      expectCoded(run.stderr, 'E2102', '--file: in.sock', 'socket');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('--file /dev/stdin keeps working when stdin is a file or a pipe (judged by what the descriptor is, not the path)', () => {
    const node = `"${process.execPath}" "${BIN}" --target local --store store --dry-run user sync --file /dev/stdin`;
    const out = execFileSync(
      'bash',
      ['-c', `${node} < users.csv 2>&1; echo "file exit $?"; cat users.csv | ${node} 2>&1; echo "pipe exit $?"`],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir, EXAMCTL_CONFIG_DIR: join(dir, '.config') },
        encoding: 'utf8',
      },
    );
    expect(out).toMatch(/2 valid[^]*file exit 0\n[^]*2 valid[^]*pipe exit 0\n$/);
  });
});

describe('a FIFO planted in examctl’s own files is refused, naming it', () => {
  it('a run journal that is a FIFO: runs list lists the rest and names it, runs show refuses (2), runs prune ends', async () => {
    const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
    const good = await examctl(
      ['--target', 'local', '--store', join(dir, 'store'), '--json', 'user', 'sync', '--file', 'users.csv'],
      dir,
      env,
    );
    expect(good.code, good.stderr).toBe(0);
    const goodId = (JSON.parse(good.stdout) as { run: string }).run;
    const planted = '20261121T090000.000Z-dead';
    mkdirSync(join(dir, 'runs', planted), { mode: 0o700 });
    mkfifo(join(dir, 'runs', planted, 'journal.ndjson'));
    const listed = await examctl(['runs', 'list'], dir, env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(goodId);
    expect(listed.stdout).toMatch(
      new RegExp(`${planted}  unreadable   skipped: \\S+journal\\.ndjson is not a regular file \\(a FIFO\\)`),
    );
    const shown = await examctl(['runs', 'show', planted], dir, env);
    expect(shown.code).toBe(2);
    expectCoded(shown.stderr, 'E2400', join(dir, 'runs', planted, 'journal.ndjson'), 'FIFO');
    const pruned = await examctl(['runs', 'prune', '--all'], dir, env);
    expect(pruned.code).toBe(0);
    // A LOCK that is a FIFO is read as "held by someone": never a hang.
    mkfifo(join(dir, 'runs', goodId, 'LOCK'));
    expect((await examctl(['runs', 'list'], dir, env)).code).toBe(0);
  });

  it("the store's CURRENT or journal as a FIFO: exit 3 naming the file", async () => {
    const store = join(dir, 'store');
    expect((await examctl(['--store', store, 'local', 'init'], dir)).code).toBe(0);
    const journal = execFileSync('sh', ['-c', 'ls journal-*'], { cwd: store, encoding: 'utf8' })
      .trim()
      .split('\n')[0] as string;
    await rm(join(store, journal));
    mkfifo(join(store, journal));
    const run = await examctl(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv'], dir, {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    });
    expect(run.code).toBe(3);
    // The facts: the file, and that it is a FIFO.
    expectCoded(run.stderr, 'E3030', join(store, journal), 'FIFO');
    await rm(join(store, 'CURRENT'));
    mkfifo(join(store, 'CURRENT'));
    const again = await examctl(['--target', 'local', '--store', store, 'user', 'sync', '--file', 'users.csv'], dir, {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    });
    expect(again.code).toBe(3);
    expectCoded(again.stderr, 'E3030', join(store, 'CURRENT'), 'FIFO');
  });

  it('config.json as a FIFO: exit 2 naming it', async () => {
    mkdirSync(join(dir, '.config'));
    mkfifo(join(dir, '.config', 'config.json'));
    const run = await examctl(['config', 'list'], dir);
    expect(run.code).toBe(2);
    expectCoded(run.stderr, 'E2000', 'config.json', 'FIFO');
  });
});
