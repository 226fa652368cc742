/**
 * `--file` naming a FIFO with no writer (docs/security.md, "A hostile file"): where nobody can
 * start a writer (no terminal, --no-input, CI=true) it is refused at once, exit 2, naming it;
 * at a terminal examctl says it waits, and Ctrl-C ends the wait (130) or a writer feeds it.
 * A process substitution, a pipe whose writer is there, keeps working under CI=true.
 */
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import type { TextSink } from '../../src/system/text-sink.js';
import { BIN } from '../support/cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

const USERS =
  'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\nu-2,Bo,Lee,u-2@example.test,Candidate\n';
const sync = ['--target', 'local', '--store', 'store', 'user', 'sync', '--file', 'in.csv'];

/** A stderr that runs `then` once examctl says it waits for the pipe's writer. */
function waitingSink(then: () => Promise<void>): TextSink & { text: string } {
  const sink = {
    text: '',
    async write(text: string) {
      sink.text += text;
      if (text.includes('waiting for a writer on in.csv')) await then();
    },
  };
  return sink;
}

describe.skipIf(process.platform === 'win32')('--file naming a FIFO with no writer', () => {
  it.each([
    ['CI=true', [], { CI: 'true' }],
    ['--no-input', ['--no-input'], {}],
    ['no terminal', [], {}],
  ] as const)('%s: exit 2 at once, naming the pipe and why; nothing made', (_name, flags, env) =>
    withTempDir(async (dir) => {
      execFileSync('mkfifo', [join(dir, 'in.csv')]);
      const io = testDeps(dir, { isTTY: _name !== 'no terminal' }, env);
      expect(await runCli([...flags, ...sync], io.deps)).toBe(2);
      expectCoded(io.stderr.text, 'E2102', '--file: in.csv', 'FIFO', 'no writer', 'regular file');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    }),
  );

  it('at a terminal: examctl says it waits; Ctrl-C ends the wait, exit 130, nothing sent', () =>
    withTempDir(async (dir) => {
      execFileSync('mkfifo', [join(dir, 'in.csv')]);
      const interrupt = new AbortController();
      const stderr = waitingSink(async () => interrupt.abort());
      const io = testDeps(dir, { isTTY: true, stderr, signal: interrupt.signal });
      expect(await runCli(sync, io.deps)).toBe(130);
      expectCoded(stderr.text, 'E1300', join(dir, 'in.csv'), 'nothing was sent');
      expect(existsSync(join(dir, 'store'))).toBe(false);
    }));

  it('at a terminal: a writer started while it waits feeds the run', () =>
    withTempDir(async (dir) => {
      execFileSync('mkfifo', [join(dir, 'in.csv')]);
      const stderr = waitingSink(async () => {
        // Waits for examctl's reader, whichever of the two opens comes first.
        const writer = await open(join(dir, 'in.csv'), 'w');
        await writer.write(USERS);
        await writer.close();
      });
      const io = testDeps(dir, { isTTY: true, stderr });
      expect(await runCli(['--json', ...sync], io.deps)).toBe(0);
      expect(JSON.parse(io.stdout.text)).toMatchObject({ summary: { ok: 2 } });
    }));

  it('synced adopt -f (repeatable) has the same gate: CI=true exit 2 at once; at a terminal Ctrl-C ends the wait (130)', () =>
    withTempDir(async (dir) => {
      execFileSync('mkfifo', [join(dir, 'in.csv')]);
      const adopt = ['--target', 'local', '--store', 'store', 'synced', 'adopt', '-f', 'in.csv', '--yes'];
      const ci = testDeps(dir, { isTTY: true }, { CI: 'true' });
      expect(await runCli(adopt, ci.deps)).toBe(2);
      expectCoded(ci.stderr.text, 'E2102', '--file: in.csv', 'FIFO', 'no writer');
      const interrupt = new AbortController();
      const stderr = waitingSink(async () => interrupt.abort());
      expect(await runCli(adopt, testDeps(dir, { isTTY: true, stderr, signal: interrupt.signal }).deps)).toBe(130);
      const twice = testDeps(dir, {}, { CI: 'true' });
      expect(await runCli([...adopt, '-f', '/dev/zero'], twice.deps)).toBe(2);
      expectCoded(twice.stderr.text, 'E2102', '--file: /dev/zero', 'device');
      const both = testDeps(dir, {}, { CI: 'true' });
      expect(await runCli([...adopt, '-f', '-'], both.deps)).toBe(2);
      expectCoded(both.stderr.text, 'E2000', '--file', 'one pipe');
    }));

  it('a process substitution <(cat users.csv) under CI=true: read like --file -', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      const out = execFileSync(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${BIN}" --target local --store store --dry-run user sync --file <(cat users.csv) 2>&1; echo "exit $?"`,
        ],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', HOME: dir, EXAMCTL_CONFIG_DIR: join(dir, '.config'), CI: 'true' },
          encoding: 'utf8',
        },
      );
      expect(out).toMatch(/2 valid[^]*exit 0\n$/);
    }));
});
