import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { childEnv } from '../support/child-env.js';

const ROOT = resolve(__dirname, '../..');
const inGit =
  spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() === 'true';

/** `git check-attr` of `attribute` for `path`: set, unset, unspecified or a value. */
function attr(attribute: string, path: string): string {
  const out = spawnSync('git', ['check-attr', attribute, '--', path], { cwd: ROOT, encoding: 'utf8' }).stdout;
  return out.trim().split(': ').pop() ?? '';
}

describe('a checkout on Windows', () => {
  it.runIf(inGit)(
    '.gitattributes: LF for text (the shebang of bin/examctl), fixtures byte-exact, workbooks binary',
    () => {
      expect(attr('eol', 'bin/examctl')).toBe('lf');
      expect(attr('eol', 'src/cli/main.ts')).toBe('lf');
      expect(attr('text', 'fixtures/input/users-bom-crlf.csv')).toBe('unset');
      expect(attr('text', 'fixtures/corpus/crlf.ndjson')).toBe('unset');
      expect(attr('text', 'fixtures/xlsx/users-libreoffice.xlsx')).toBe('unset');
      expect(attr('diff', 'report.xlsx')).toBe('unset');
    },
  );

  it('bin/examctl has an LF shebang as committed', () => {
    expect(readFileSync(join(ROOT, 'bin/examctl'), 'latin1').split('\n')[0]).toMatch(/^#!.*node$/);
  });

  it('the CI workflow runs npm ci and npm test on ubuntu, windows and macos with Node 20 and 22', () => {
    const file = join(ROOT, '.github/workflows/ci.yml');
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/os: \[ubuntu-latest, windows-latest, macos-latest\]/);
    expect(text).toMatch(/node: \[20, 22\]/);
    expect(text).toContain('run: npm ci');
    expect(text).toContain('run: npm test');
  });

  it('spawned examctl gets what Windows needs and a private home, config and runs directory', () => {
    const parent = {
      PATH: 'C:\\bin',
      SystemRoot: 'C:\\Windows',
      TEMP: 'C:\\T',
      TMP: 'C:\\T',
      USERPROFILE: 'C:\\Users\\dev',
      APPDATA: 'C:\\Users\\dev\\AppData\\Roaming',
      LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local',
      SECRET: 'x',
      CI: 'true',
    };
    const env = childEnv('/work/t', parent);
    expect(env).toMatchObject({
      PATH: 'C:\\bin',
      SystemRoot: 'C:\\Windows',
      TEMP: 'C:\\T',
      TMP: 'C:\\T',
      HOME: '/work/t',
      USERPROFILE: '/work/t',
    });
    expect(env.APPDATA).toBe(join('/work/t', 'AppData', 'Roaming'));
    expect(env.LOCALAPPDATA).toBe(join('/work/t', 'AppData', 'Local'));
    expect(env.EXAMCTL_RUNS_DIR).toBe(join('/work/t', '.local', 'state', 'examctl', 'runs'));
    expect(env).not.toHaveProperty('SECRET');
    expect(env).not.toHaveProperty('CI');
    expect(Object.keys(childEnv('/h', { PATH: '/usr/bin' })).sort()).toEqual([
      'EXAMCTL_CONFIG_DIR',
      'EXAMCTL_RUNS_DIR',
      'HOME',
      'PATH',
      'TZ',
    ]);
  });
});
