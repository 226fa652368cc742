/**
 * What an input file that cannot be read is called: `--file ""` (a script's unset variable) is
 * named as the empty flag, whichever command takes it, never "cannot read: is a directory"; a
 * workbook under a text file's name is called a zip archive, with the name it needs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

async function run(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(['--target', 'local', '--store', join(dir, 'store'), ...args], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** The local header of a zip entry, as an .xlsx workbook starts. */
const WORKBOOK_HEAD = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]);
/** A stored entry's header (`zip -0`): its version byte 10 is a line feed. */
const STORED_HEAD = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00]);

describe('input files named wrongly', () => {
  it.each([
    [['user', 'sync', '--dry-run']],
    [['schedule', 'push', '--dry-run']],
    [['collection', 'add', '--dry-run']],
    [['invigilators', 'remove', 'S-1', '--dry-run']],
    [['review-session', 'show']],
    [['synced', 'adopt']],
  ])('%j --file "": exit 2, the flag named as empty', (args) =>
    withTempDir(async (dir) => {
      const said = await run(dir, [...args, '--file', '']);
      expect(said.code, said.stderr).toBe(2);
      expectCoded(said.stderr, 'E2001', '--file', 'empty');
      expect(said.stderr).not.toContain('directory');
      expect(said.stdout).toBe('');
    }),
  );

  it.each([
    ['users.csv', WORKBOOK_HEAD],
    ['users.json', WORKBOOK_HEAD],
    ['users.txt', WORKBOOK_HEAD],
    ['users.csv', STORED_HEAD],
  ])(
    'a workbook saved as %s is called a zip archive, to be named .xlsx, with no line number (a zip has no lines)',
    (name, head) =>
      withTempDir(async (dir) => {
        await writeFile(join(dir, name), Buffer.concat([head, Buffer.from('[Content_Types].xml')]));
        const said = await run(dir, ['user', 'sync', '--dry-run', '--file', name]);
        expect(said.code, said.stderr).toBe(2);
        expectCoded(said.stderr, 'E2100', `${name}: not a text file`, 'zip archive', '.xlsx');
      }),
  );

  it('a header-only CSV is a valid empty input: exit 0, 0 items, nothing sent; an empty one is exit 2 at line 1 (docs/input-formats.md)', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Email,Role\n');
      const headerOnly = await run(dir, ['user', 'sync', '--file', 'users.csv', '--json']);
      expect(headerOnly.code, headerOnly.stderr).toBe(0);
      expect(JSON.parse(headerOnly.stdout).summary).toEqual({ total: 0, ok: 0, partial: 0, failed: 0, skipped: 0 });
      await writeFile(join(dir, 'empty.csv'), '');
      const empty = await run(dir, ['user', 'sync', '--file', 'empty.csv']);
      expect(empty.code, empty.stderr).toBe(2);
      expectCoded(empty.stderr, 'E2100', 'empty.csv:1', 'no header row');
    }));

  it('a --schedule file or a JSON id list of more than 16,384 keys in one object: exit 2 naming it, its line and the limit', () =>
    withTempDir(async (dir) => {
      const keys = Array.from({ length: 16_385 }, (_, i) => `"${i.toString(16)}":1`).join(',');
      await writeFile(join(dir, 'schedule.json'), `{"Schedule":\n{${keys}}}`);
      await writeFile(
        join(dir, 'candidates.csv'),
        'CandidateExtId,FirstName,LastName,Email\nc-1,Ann,Lee,c-1@example.test\n',
      );
      const said = await run(dir, [
        'schedule',
        'push',
        '--dry-run',
        '--file',
        'candidates.csv',
        '--schedule',
        'schedule.json',
      ]);
      expect(said.code, said.stderr).toBe(2);
      expectCoded(said.stderr, 'E2100', 'schedule.json:2', '16,384', 'column');
      await writeFile(join(dir, 'ids.json'), `{${keys}}`);
      const ids = await run(dir, ['invigilators', 'remove', 'S-1', '--dry-run', '--file', 'ids.json']);
      expect(ids.code, ids.stderr).toBe(2);
      expectCoded(ids.stderr, 'E2100', 'ids.json:1', '16,384', 'column');
    }));

  it('other binary content, and a text that starts PK, are not called a workbook', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'bin.csv'), Buffer.from('ExternalId,FirstName\nu\u0000,Ann\n'));
      const binary = await run(dir, ['user', 'sync', '--dry-run', '--file', 'bin.csv']);
      expect(binary.code).toBe(2);
      expectCoded(binary.stderr, 'E2100', 'bin.csv:2', 'binary');
      expect(binary.stderr).not.toContain('.xlsx');
      await writeFile(join(dir, 'pk.csv'), Buffer.concat([Buffer.from('PK,FirstName\n1,Ann\u0000\n')]));
      const text = await run(dir, ['user', 'sync', '--dry-run', '--file', 'pk.csv']);
      expectCoded(text.stderr, 'E2100', 'pk.csv:2', 'binary');
      expect(text.stderr).not.toContain('.xlsx');
    }));
});
