import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commandName } from '../../src/cli/command-declaration.js';
import { COMMANDS } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run-cli.js';
import { childEnv } from '../support/child-env.js';
import { PINNED_NOW, ROOT } from '../support/cli.js';
import { StringSink } from '../support/string-sink.js';
import { withTempDir } from './helpers.js';

/**
 * `--json` is exactly one JSON document on stdout (docs/cli-contract.md), for every command of
 * the tree, in its success path and its usual refusals (the error document, exit 2 or 3). The
 * steps run in order on one fresh home (config, store, runs and sync directory); each is its
 * expected exit code and argv, and prints stdout that parses whole as one JSON value. With
 * `--out <file>` the document is that file (docs/cli.md, "Run report", other outputs).
 */
const STEPS: readonly (readonly [number, ...string[]])[] = [
  [0, 'config', 'set-profile', 'a', '--base-url', 'http://127.0.0.1:1'],
  [0, 'config', 'set-profile', 'b'],
  [0, 'config', 'list'],
  [0, 'config', 'show'],
  [3, 'doctor', '--profile', 'a'],
  [0, 'config', 'use', 'a'],
  [2, 'config', 'use', 'nobody'],
  [0, 'config', 'remove', 'a'],
  [2, 'config', 'remove', 'a'],
  [3, 'login', '--profile', 'b', '--base-url', 'http://127.0.0.1:1', '--with-token'],
  [2, 'login', '--profile', 'b'],
  // b has no base URL: no token for it unchecked (trial45 F05); with one, stored.
  [2, 'login', '--profile', 'b', '--with-token', '--no-verify'],
  [0, 'login', '--profile', 'b', '--base-url', 'http://127.0.0.1:1', '--with-token', '--no-verify'],
  [0, 'local', 'init'],
  [2, 'local', 'init'],
  [0, 'local', 'export'],
  [0, 'local', 'export', '--out', 'world.json'],
  [0, 'local', 'serve', '--port', '0'],
  [0, 'template', 'users'],
  [0, 'template', 'users', '--out', 'users.json'],
  [0, 'template', 'collection', '--example'],
  [2, 'template', 'users', '--example'],
  [0, 'template', 'users', '--map-example'],
  [0, 'schema', 'users'],
  [0, 'explain', 'E2101'],
  [2, 'explain', 'E0000'],
  [0, 'user', 'sync', '--file', 'users.csv', '--target', 'local'],
  [2, 'user', 'sync', '--file', 'missing.csv', '--target', 'local'],
  [0, 'user', 'sync', '--file', 'users.csv', '--target', 'local', '--dry-run', '--plan-out', 'plan.json'],
  [0, 'apply', 'plan.json'],
  [0, 'apply', 'plan.json'],
  [2, 'apply', 'users.csv'],
  [0, 'schedule', 'push', '--file', 'sittings.csv', '--target', 'local'],
  [0, 'schedule', 'links', 'S-MATH1-DEC'],
  [0, 'schedule', 'links', 'S-MATH1-DEC', '--out', 'links.json'],
  [2, 'schedule', 'links', 'S-NONE'],
  [0, 'collection', 'add', '--file', 'collection.json', '--target', 'local'],
  [1, 'invigilators', 'remove', 'S-MATH1-DEC', 'inv-2', '--target', 'local'],
  [0, 'review-session', 'show', 'RS-MATH1-OCT', '--target', 'local'],
  [0, 'review-session', 'show', 'RS-MATH1-OCT', '--target', 'local', '--out', 'rs.json'],
  [1, 'review-session', 'show', 'RS-NONE', '--target', 'local'],
  [1, 'review-session', 'show', '--file', 'users.csv', '--target', 'local'],
  [0, 'doctor', '--target', 'local'],
  [0, 'runs', 'list'],
  [1, 'runs', 'show', 'last'],
  [2, 'runs', 'show', 'nosuch'],
  [0, 'runs', 'resume'],
  [0, 'runs', 'prune'],
  [3, 'user', 'sync', '--file', 'users.csv', '--profile', 'b', '--base-url', 'http://127.0.0.1:1', '--yes'],
  // A run that begins with a write (a user sync's first request, the store's head, comes before its journal):
  // resumable.
  [3, 'collection', 'add', '--title', 'Physics', '--profile', 'b', '--base-url', 'http://127.0.0.1:1', '--yes'],
  [3, 'runs', 'resume', '--profile', 'b', '--base-url', 'http://127.0.0.1:1', '--yes'],
  [3, 'review-session', 'show', 'RS-1', '--profile', 'b', '--base-url', 'http://127.0.0.1:1'],
  [0, 'synced', 'show'],
  [0, 'synced', 'export', '--target', 'local', '--out', 'memory.json'],
  [0, 'synced', 'import', 'memory.json', '--target', 'local'],
  [2, 'synced', 'import', 'users.csv', '--target', 'local'],
  [0, 'synced', 'adopt', '--file', 'users.csv', '--target', 'local', '--dry-run'],
  [0, 'synced', 'adopt-schedules', '--file', 'sittings.csv', '--target', 'local', '--dry-run'],
  [0, 'synced', 'adopt-collections', '--file', 'collection.json', '--target', 'local', '--dry-run'],
  [2, 'synced', 'unlock', 'some-lock'],
  [0, 'synced', 'forget', '--target', 'local'],
  [2, 'completion', 'bash'],
  [2, 'options'],
  [2, 'help', 'config'],
  [2, 'config'],
];

describe('--json: one document on stdout, for every command', () => {
  it('every command of the tree has a step (a new one fails here until it has)', () => {
    const stepped = new Set(
      STEPS.map(([, ...argv]) => argv.slice(0, 2).join(' ')).flatMap((two) => [two, two.split(' ')[0]]),
    );
    expect(
      COMMANDS.filter((declaration) => declaration.options !== undefined)
        .map(commandName)
        .filter((name) => !stepped.has(name)),
    ).toEqual([]);
  });

  it('each step exits as expected and prints exactly one JSON value', () =>
    withTempDir(async (home) => {
      for (const file of ['users.csv', 'sittings.csv', 'collection.json'])
        await copyFile(join(ROOT, 'fixtures', file), join(home, file));
      const wrong: string[] = [];
      for (const [expected, ...argv] of STEPS) {
        const [stdout, stderr] = [new StringSink(), new StringSink()];
        const code = await runCli([...argv, '--json'], {
          stdout,
          stderr,
          env: { ...childEnv(home), EXAMCTL_NOW: PINNED_NOW, EXAMCTL_STORE: join(home, 'store') },
          now: () => new Date(PINNED_NOW),
          isTTY: false,
          cwd: home,
          // login's token; an unreachable service is answered at once (no waits between retries).
          stdin: Readable.from(['token-1\n']),
          retrySleep: async () => undefined,
          // local serve stops as soon as it listens.
          signal: argv[1] === 'serve' ? AbortSignal.abort() : undefined,
        });
        const out = argv.indexOf('--out');
        const text =
          stdout.text === '' && out > 0 ? await readFile(join(home, argv[out + 1] as string), 'utf8') : stdout.text;
        let document = true;
        try {
          JSON.parse(text);
        } catch {
          document = false;
        }
        if (code !== expected || !document)
          wrong.push(
            `${argv.join(' ')} --json: exit ${code}, ${document ? 'one' : 'not one'} document: ${text.slice(0, 80)} ${stderr.text.slice(0, 200)}`,
          );
      }
      expect(wrong).toEqual([]);
    }));
});
