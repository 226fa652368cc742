/**
 * Every message says the problem in words, never a bare system code: `--map-file` a FIFO, a
 * report path that is a directory, under a missing directory or under a file, a read-only file
 * system, the run journal's fingerprint of its input, and the other files examctl reads by name.
 * The code may follow in parentheses (it can be searched for); it never stands alone.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { startJournaling } from '../../src/pipeline/run-journaling.js';
import { cannotWriteReport } from '../../src/report/report-file.js';
import { PlantedEntryError } from '../../src/system/output-file.js';
import { describeSystemError } from '../../src/system/system-error-words.js';
import { testDeps, withTempDir } from './helpers.js';

const USERS = 'ExternalId,FirstName,LastName,Email,Role\nu-1,Ann,Lee,u-1@example.test,Candidate\n';

async function run(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), ...env });
  const code = await runCli(args, io.deps);
  return { code, stderr: io.stderr.text };
}

/** A bare code: `: ENOTREG`, `(EISDIR)` with no words before it, a code at the end of a line. */
function bareCode(text: string): RegExpMatchArray | null {
  return text.match(/(?:: |^)E[A-Z]{3,}(?:$|[;\s:,])/m);
}

describe('system errors reach the admin in words', () => {
  it('--map-file naming a FIFO or a directory: what it is, not ENOTREG', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      execFileSync('mkfifo', [join(dir, 'map.json')]);
      await mkdir(join(dir, 'maps'));
      const fifo = await run(dir, [
        '--store',
        join(dir, 'store'),
        'user',
        'sync',
        '--file',
        'users.csv',
        '--dry-run',
        '--map-file',
        'map.json',
      ]);
      expect(fifo.code).toBe(2);
      expectCoded(fifo.stderr, 'E2102', '--map-file map.json', 'FIFO');
      expect(bareCode(fifo.stderr)).toBeNull();
      const directory = await run(dir, [
        '--store',
        join(dir, 'store'),
        'user',
        'sync',
        '--file',
        'users.csv',
        '--dry-run',
        '--map-file',
        'maps',
      ]);
      expect(directory.code).toBe(2);
      expectCoded(directory.stderr, 'E2102', '--map-file maps', 'directory');
    }));

  it.each([
    ['a directory', (dir: string) => mkdir(join(dir, 'out.csv')), 'out.csv', 'it is a directory, not a file (EISDIR)'],
    [
      'under a missing directory',
      async () => undefined,
      join('no-such-dir', 'out.csv'),
      'the directory does not exist (ENOENT)',
    ],
    [
      'under a file',
      (dir: string) => writeFile(join(dir, 'plain'), ''),
      join('plain', 'out.csv'),
      'a part of the path is a file, not a directory (ENOTDIR)',
    ],
  ])('--report %s: exit 2 before anything is sent, the reason in words', (_what, make, report, words) =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await make(dir);
      const said = await run(dir, [
        '--target',
        'local',
        '--store',
        join(dir, 'store'),
        'user',
        'sync',
        '--file',
        'users.csv',
        '--report',
        report,
      ]);
      expect(said.code, said.stderr).toBe(2);
      expect(said.stderr).toMatch(
        new RegExp(`cannot write report \\S*${report.replace(/[.\\/]/g, '\\$&')}: ${words.replace(/[()]/g, '\\$&')}`),
      );
      expect(bareCode(said.stderr)).toBeNull();
    }),
  );

  it('a report on a read-only file system: EROFS in words', () => {
    const readOnly = Object.assign(new Error("EROFS: read-only file system, open '/mnt/ro/r.csv'"), { code: 'EROFS' });
    expect(cannotWriteReport('/mnt/ro/r.csv', readOnly).message).toBe(
      'cannot write report /mnt/ro/r.csv: the file system is read-only (EROFS)',
    );
  });

  it("another user's file at the report's name in a sticky folder is E2400, as every untrusted place (not E2000)", () => {
    // Refused only for a user who is not root (root may replace it): the words plantedEntryProblem gives, as the gate throws them.
    const planted = new PlantedEntryError(
      '/tmp/r.csv is already there, owned by uid 1234, in a sticky folder (only its owner may replace it): choose another path',
    );
    const refused = cannotWriteReport('/tmp/r.csv', planted);
    expect(refused.code).toBe('E2400');
    expect(refused.message).toContain('/tmp/r.csv');
    expect(refused.message).toContain('uid 1234');
    expect(cannotWriteReport('/tmp/r.csv', new Error('EIO')).code).toBe('E2000');
  });

  it("the run journal's fingerprint of an input that is not a regular file says what it is", () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, 'users.csv'));
      const io = testDeps(dir, { invocation: { file: 'users.csv' } }, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      const started = startJournaling(
        'user sync',
        { kind: 'local', store: join(dir, 'store') } as never,
        1,
        {} as never,
        io.deps,
      );
      await expect(started).rejects.toThrow(
        `cannot read ${join(dir, 'users.csv')} for the run journal: it is a directory, not a regular file`,
      );
    }));

  it('--pin-file, --schedule, a world file, the runs and sync directories: each in words', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), USERS);
      await writeFile(join(dir, 'plain'), '');
      const cases: [string[], Record<string, string>, string][] = [
        [
          [
            '--target',
            'local',
            '--store',
            join(dir, 'store'),
            'schedule',
            'push',
            '--file',
            'users.csv',
            '--dry-run',
            '--schedule',
            'none.json',
          ],
          {},
          'none.json: cannot read: no such file',
        ],
        [
          ['--store', join(dir, 'store'), 'local', 'init', '--seed', 'no-world.json'],
          {},
          'no-world.json: no such file',
        ],
        [
          ['runs', 'list'],
          { EXAMCTL_RUNS_DIR: join(dir, 'plain', 'runs') },
          `the runs directory ${join(dir, 'plain', 'runs')} is not a directory`,
        ],
        [
          [
            '--target',
            'local',
            '--store',
            join(dir, 'store'),
            'schedule',
            'push',
            '--file',
            'users.csv',
            '--pin-file',
            'no-pin.txt',
          ],
          {},
          '--pin-file: cannot read no-pin.txt: the file does not exist (ENOENT)',
        ],
      ];
      for (const [args, env, words] of cases) {
        const said = await run(dir, args, env);
        expect(said.code, `${args.join(' ')}: ${said.stderr}`).not.toBe(0);
        expect(said.stderr).toContain(words);
        expect(bareCode(said.stderr), said.stderr).toBeNull();
      }
    }));

  it('a code examctl has no words of its own for gets the system words, never the code alone', () => {
    expect(describeSystemError(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }))).toBe(
      'an input/output error (a failing disk, or a network drive that went away) (EIO)',
    );
    expect(describeSystemError(Object.assign(new Error('ENOTSUP'), { code: 'ENOTSUP' }))).toBe(
      'operation not supported on socket (ENOTSUP)',
    );
    expect(describeSystemError(Object.assign(new Error('EWEIRD'), { code: 'EWEIRD' }))).toBe(
      'the system refused with EWEIRD',
    );
  });

  it('no message in src/ puts a bare errno code where words belong', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const files: string[] = [];
    const walk = (at: string): void => {
      for (const name of readdirSync(at)) {
        const path = join(at, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts')) files.push(path);
      }
    };
    walk(root);
    // `${x.code ?? String(error)}`, `${systemErrorCode(error) ?? ...}`, `${code ?? ...}` inside a message
    // (an API problem's numeric code shown as `${problem.code ?? '-'}` is not a system code).
    const bare = /\$\{\(?(?:\w+(?:\.\w+)*\)?\.code|systemErrorCode\([^)]*\)|code) \?\? (?!'-')/;
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (bare.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
