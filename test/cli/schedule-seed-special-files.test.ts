/**
 * `--schedule` and `local init --seed` are opened as every input is (src/system/regular-file.ts):
 * a FIFO with no writer is exit 2 at once (never a wait no signal ends), a device is exit 2
 * before a byte is read, and a file over the limit is exit 2 naming it, by its size, unread.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { SETTINGS_FILE_MAX_BYTES } from '../../src/system/regular-file.js';
import { testDeps, withTempDir } from './helpers.js';

/** A world file's limit (docs/engine-rules.md, "World file"). */
const WORLD_FILE_MAX_BYTES = 256 * 2 ** 20;
const SITTINGS = 'ScheduleExtId,Title\nS-1,Maths\n';

const commands: [string, (dir: string, file: string) => string[], number][] = [
  [
    '--schedule',
    (dir, file) => [
      '--target',
      'local',
      '--store',
      join(dir, 'store'),
      'schedule',
      'push',
      '--file',
      's.csv',
      '--dry-run',
      '--schedule',
      file,
    ],
    SETTINGS_FILE_MAX_BYTES,
  ],
  [
    '--seed',
    (dir, file) => ['--target', 'local', '--store', join(dir, 'store'), 'local', 'init', '--seed', file],
    WORLD_FILE_MAX_BYTES,
  ],
];

async function run(dir: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), CI: 'true' });
  const code = await runCli(args, io.deps);
  return { code, stderr: io.stderr.text };
}

// Windows has no FIFO in the file system and no /dev/zero.
describe.skipIf(process.platform === 'win32').each(commands)(
  '%s naming what is no regular file',
  (_flag, args, maxBytes) => {
    it('a FIFO with no writer (CI=true): exit 2 at once, named', () =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 's.csv'), SITTINGS);
        execFileSync('mkfifo', [join(dir, 'in.json')]);
        const said = await run(dir, args(dir, 'in.json'));
        expect(said.code, said.stderr).toBe(2);
        // Trial 8, f06: `<(...)` and /dev/stdin fed by a pipe are FIFOs too: the way forward is said.
        expect(lineWith(said.stderr, 'in.json: ', 'FIFO', 'save it to a file')).toMatch(/^examctl: E2102: /);
        expect(existsSync(join(dir, 'store'))).toBe(false);
      }));

    it('/dev/zero: exit 2 before a byte is read', () =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 's.csv'), SITTINGS);
        const said = await run(dir, args(dir, '/dev/zero'));
        expect(said.code, said.stderr).toBe(2);
        expect(said.stderr).toMatch(/\/dev\/zero: (cannot read: )?it is a device, not a regular file\n/);
      }));

    it('a file one byte over the limit (sparse): exit 2 naming it and the limit, unread', () =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, 's.csv'), SITTINGS);
        await writeFile(join(dir, 'big.json'), '{');
        await truncate(join(dir, 'big.json'), maxBytes + 1);
        const said = await run(dir, args(dir, 'big.json'));
        expect(said.code, said.stderr).toBe(2);
        expect(said.stderr).toMatch(
          new RegExp(
            `big\\.json: (cannot read: )?it is larger than ${maxBytes / 2 ** 20} MiB, the most examctl reads\\n`,
          ),
        );
      }));
  },
);
