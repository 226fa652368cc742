import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';

/** A report is written whole over its path: never over a file the run reads (its input, its map file). */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
  const code = await runCli(argv, io.deps);
  return { code, stderr: io.stderr.text };
}

describe('--report naming a file the run reads', () => {
  it('is refused before anything is read or sent, the file left as it was (also through a link, also a --map-file)', () =>
    withTempDir(async (dir) => {
      const users = 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n';
      writeFileSync(join(dir, 'users.csv'), users);
      const same = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--report', 'users.csv', '--store', 's']);
      expect(same.code).toBe(2);
      expectCoded(same.stderr, 'E2000', '--report users.csv', '--file');
      symlinkSync(join(dir, 'users.csv'), join(dir, 'link.csv'));
      expect(
        (await cli(dir, ['user', 'sync', '--file', 'link.csv', '--report', './users.csv', '--store', 's'])).code,
      ).toBe(2);
      writeFileSync(join(dir, 'map.json'), JSON.stringify({ ID: 'ExternalId' }));
      const map = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--map-file',
        'map.json',
        '--report',
        'map.json',
        '--store',
        's',
      ]);
      expect(map.code).toBe(2);
      expectCoded(map.stderr, 'E2000', '--report map.json', '--map-file');
      writeFileSync(join(dir, 'token.json'), 'a-token\n');
      const token = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--base-url',
        'https://exam.example.test',
        '--token-file',
        'token.json',
        '--report',
        'token.json',
        '--yes',
      ]);
      expect(token.code).toBe(2);
      expectCoded(token.stderr, 'E2000', '--report token.json', '--token-file');
      expect(readFileSync(join(dir, 'token.json'), 'utf8')).toBe('a-token\n');
      expect(readFileSync(join(dir, 'users.csv'), 'utf8')).toBe(users);
      // Another name is fine.
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', '--report', 'r.csv', '--store', 's'])).code).toBe(
        0,
      );
    }));

  it('a report that cannot be written (a directory of that name, a directory that is not there) is refused before the local store is made', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n');
      mkdirSync(join(dir, 'rep.csv'));
      const directory = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--report', 'rep.csv', '--store', 's']);
      expect(directory.code).toBe(2);
      expectCoded(directory.stderr, 'E2000', `report ${join(dir, 'rep.csv')}`, 'EISDIR');
      const nowhere = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        '--report',
        'nodir/r.csv',
        '--store',
        's',
      ]);
      expect(nowhere.code).toBe(2);
      expectCoded(nowhere.stderr, 'E2000', `report ${join(dir, 'nodir', 'r.csv')}`, 'ENOENT');
      expect(existsSync(join(dir, 's'))).toBe(false);
    }));
});
