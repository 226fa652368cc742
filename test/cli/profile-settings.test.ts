/**
 * A profile holds the input and output settings a nightly job would repeat (docs/input-formats.md,
 * "Profiles"): `config set-profile` takes them, checked as the commands would check them;
 * `config show` lists them; a record command and review-session show use them unless a flag says
 * otherwise. Through the real CLI.
 */
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { inputShaping } from '../../src/pipeline/command-input.js';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { testDeps, withTempDir } from './helpers.js';

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testDeps(dir);
  const code = await runCli(args, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function profileOf(dir: string, name: string): Promise<Record<string, unknown>> {
  const config = JSON.parse(await readFile(join(dir, '.config', 'config.json'), 'utf8')) as {
    profiles: Record<string, Record<string, unknown>>;
  };
  return config.profiles[name] as Record<string, unknown>;
}

const MAP = {
  'Student ID': 'ExternalId',
  'Given name': 'FirstName',
  Surname: 'LastName',
  Subject: { field: 'Hierarchies', values: { Mathematics: 'DEPT-MATH', Science: 'DEPT-SCI' } },
};

describe('config set-profile keeps the settings', () => {
  it('takes --map-file (stored absolute), --map, --set, --date-format, --timezone, --encoding, --delimiter, --decimal-separator, --strict; config show lists them; --unset removes one', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sis-map.json'), JSON.stringify(MAP));
      const set = await cli(dir, [
        'config',
        'set-profile',
        'school',
        '--base-url',
        'https://exam.example.org',
        '--map-file',
        'sis-map.json',
        '--map',
        'Mobile=CellularPhone',
        '--set',
        'Role=Candidate',
        '--set',
        'DateOfBirth=01/02/2000',
        '--date-format',
        'DD/MM/YYYY',
        '--timezone',
        'Europe/London',
        '--encoding',
        'windows-1252',
        '--delimiter',
        ';',
        '--decimal-separator',
        ',',
        '--strict',
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect((await profileOf(dir, 'school')).defaults).toEqual({
        mapFile: join(dir, 'sis-map.json'),
        map: { Mobile: 'CellularPhone' },
        set: { Role: 'Candidate', DateOfBirth: '01/02/2000' },
        dateFormat: 'DD/MM/YYYY',
        timezone: 'Europe/London',
        encoding: 'windows-1252',
        delimiter: ';',
        decimalSeparator: ',',
        strict: true,
      });
      const shown = await cli(dir, ['config', 'show']);
      expect(shown.stdout).toContain(
        `(mapFile ${join(dir, 'sis-map.json')}, map Mobile=CellularPhone, set Role=Candidate DateOfBirth=01/02/2000, dateFormat DD/MM/YYYY, timezone Europe/London, encoding windows-1252, delimiter ;, decimalSeparator ",", strict true)`,
      );
      // --set and --map add to what the profile keeps; --unset takes the flag's name or the key.
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'school',
            '--set',
            'Role=Author',
            '--unset',
            'encoding',
            '--unset',
            'decimalSeparator',
            '--unset',
            'strict',
          ])
        ).code,
      ).toBe(0);
      const after = (await profileOf(dir, 'school')).defaults as Record<string, unknown>;
      expect(after.set).toEqual({ Role: 'Author', DateOfBirth: '01/02/2000' });
      expect(after).not.toHaveProperty('encoding');
      expect(after).not.toHaveProperty('decimalSeparator');
      expect(after).not.toHaveProperty('strict');
      expect(after.baseUrl).toBeUndefined();
    }));

  it('refuses what every run would refuse, naming the flag (and a map file by its line and key); the profile is left as it was', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'bad-map.json'), '{\n  "Hierarchies": {"column": "Dept", "flags": {"X": "boss"}}\n}');
      expect((await cli(dir, ['config', 'set-profile', 'school', '--base-url', 'https://exam.example.org'])).code).toBe(
        0,
      );
      const cases: [string[], string][] = [
        [
          ['--map-file', 'bad-map.json'],
          '--map-file bad-map.json:2: "Hierarchies" > "flags" > "X": not a flag: one of coordinator',
        ],
        [['--map-file', 'nope.json'], '--map-file nope.json: cannot read: no such file'],
        [['--timezone', 'Europe/Atlantis'], '--timezone: unknown time zone "Europe/Atlantis"'],
        [['--date-format', 'DD.MM.YY'], '--date-format DD.MM.YY: unknown token "YY"'],
        [['--encoding', 'klingon'], '--encoding klingon: not an encoding name examctl knows'],
        [['--set', 'Rol=Candidate'], '--set Rol: unknown field "Rol" (did you mean Role?)'],
        [['--set', 'Password=hunter22'], '--set Password: Password is a secret and is not kept in a profile'],
        [
          ['--set', 'DateOfBirth=31/04/2000', '--date-format', 'DD/MM/YYYY'],
          '--set DateOfBirth=31/04/2000: DateOfBirth "31/04/2000" is not a real date',
        ],
        [['--map', 'Student ID=ExternlId'], '--map ExternlId: unknown field "ExternlId" (did you mean ExternalId?)'],
        [['--unset', 'colour'], '--unset colour: not a setting of a profile; one of map-file, map, set'],
      ];
      for (const [flags, message] of cases) {
        const { code, stderr } = await cli(dir, ['config', 'set-profile', 'school', ...flags]);
        expect(code, flags.join(' ')).toBe(2);
        expect(stderr).toContain(message);
      }
      expect(await profileOf(dir, 'school')).toEqual({ baseUrl: 'https://exam.example.org' });
    }));

  it('--token-file is read now, as every run reads it: one missing or empty is exit 2 naming the path, nothing written', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'empty.token'), '');
      for (const file of ['missing.token', 'empty.token']) {
        const { code, stderr } = await cli(dir, [
          'config',
          'set-profile',
          'school',
          '--base-url',
          'https://exam.example.org',
          '--token-file',
          file,
        ]);
        expect(code, file).toBe(2);
        expectCoded(stderr, 'E2000', '--token-file', join(dir, file));
      }
      await expect(readFile(join(dir, '.config', 'config.json'))).rejects.toThrow('ENOENT');
      await writeFile(join(dir, 'school.token'), 'tok-123\n', { mode: 0o600 });
      const set = await cli(dir, ['config', 'set-profile', 'school', '--token-file', 'school.token']);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr + set.stdout).not.toContain('tok-123');
      expect(await profileOf(dir, 'school')).toEqual({ tokenFile: join(dir, 'school.token') });
    }));
});

describe('the config file is read with a size limit, as a map file is', () => {
  it('a 700 MB config file (sparse: no disk, no time) is refused by its size, unread', () =>
    withTempDir(async (dir) => {
      await mkdir(join(dir, '.config'), { mode: 0o700 });
      const handle = await open(join(dir, '.config', 'config.json'), 'w', 0o600);
      await handle.truncate(700 * 1024 * 1024);
      await handle.close();
      const { code, stderr } = await cli(dir, ['config', 'show']);
      expect(code).toBe(2);
      expectCoded(stderr, 'E2000', join(dir, '.config', 'config.json'), '4 MiB');
    }));
});

describe("a profile's settings apply unless a flag says otherwise", () => {
  it('an SIS export in windows-1252 with DD/MM/YYYY dates goes in with only the map file and the profile', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sis-map.json'), JSON.stringify(MAP));
      const csv =
        'Student ID;Given name;Surname;Email;UserName;Date of birth;Subject\r\nS-1;Jürgen;Müller;j@example.test;jm;15/07/2000;Mathematics\r\nS-2;Zoë;Lee;z@example.test;zl;01/02/2001;Art\r\n';
      await writeFile(join(dir, 'sis.csv'), Buffer.from(csv, 'latin1'));
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'school',
            '--base-url',
            'https://exam.example.org',
            '--map-file',
            'sis-map.json',
            '--set',
            'Role=Candidate',
            '--date-format',
            'DD/MM/YYYY',
            '--encoding',
            'windows-1252',
          ])
        ).code,
      ).toBe(0);
      const io = testDeps(dir);
      const code = await runCli(['user', 'sync', '--file', 'sis.csv', '--dry-run', '--json'], io.deps);
      expect(code, io.stderr.text).toBe(1);
      const items = (
        JSON.parse(io.stdout.text) as { items: { id: string; status: string; errors: { message: string }[] }[] }
      ).items;
      expect(items.map((item) => [item.id, item.status])).toEqual([
        ['S-1', 'ok'],
        ['S-2', 'failed'],
      ]);
      expect(items[1]!.errors[0]!.message).toContain(
        'Subject "Art" has no entry in the value table of profile school: mapFile',
      );
      // A flag wins over the profile: --encoding utf-8 reads the Latin-1 bytes as what they are not.
      const flagged = testDeps(dir);
      expect(
        await runCli(['user', 'sync', '--file', 'sis.csv', '--dry-run', '--encoding', 'utf-8'], flagged.deps),
      ).toBe(2);
      expect(flagged.stderr.text).toContain('invalid UTF-8');
      // A base URL named another way: the default profile's settings (its encoding too) do not follow it.
      const elsewhere = testDeps(dir, {}, { EXAMCTL_BASE_URL: 'https://other.example.org' });
      expect(await runCli(['user', 'sync', '--file', 'sis.csv', '--dry-run'], elsewhere.deps)).toBe(2);
      expectCoded(elsewhere.stderr.text, 'E2100', 'sis.csv', '--encoding');
    }));

  it("a UTF-8 export under a profile's windows-1252 is refused, not read as JÃ¼rgen; --encoding utf-8 reads it", () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'sis-map.json'), JSON.stringify(MAP));
      const csv =
        'Student ID;Given name;Surname;Email;UserName;Date of birth;Subject\r\nS-1;Ann;Lee;a@example.test;al;15/07/2000;Mathematics\r\nS-2;Jürgen;Müller;j@example.test;jm;01/02/2001;Science\r\n';
      await writeFile(join(dir, 'sis.csv'), csv);
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'school',
            '--base-url',
            'https://exam.example.org',
            '--map-file',
            'sis-map.json',
            '--set',
            'Role=Candidate',
            '--date-format',
            'DD/MM/YYYY',
            '--encoding',
            'windows-1252',
          ])
        ).code,
      ).toBe(0);
      const refused = testDeps(dir);
      expect(await runCli(['user', 'sync', '--file', 'sis.csv', '--dry-run', '--json'], refused.deps)).toBe(2);
      expectCoded(
        refused.stderr.text,
        'E2100',
        'sis.csv:3:',
        'UTF-8',
        '"ürgen;Müll"',
        'windows-1252',
        '--encoding utf-8',
      );
      const flagged = testDeps(dir);
      expect(
        await runCli(['user', 'sync', '--file', 'sis.csv', '--dry-run', '--json', '--encoding', 'utf-8'], flagged.deps),
      ).toBe(0);
      expect(flagged.stdout.text).not.toContain('Ã');
    }));

  it("runs show --report reads a run's input with the profile the run had, not the one made since", () =>
    withTempDir(async (dir) => {
      await writeFile(
        join(dir, 'users.csv'),
        'ExternalId,FirstName,LastName,Email,Role\nu-1,Jürgen,Müller,j@example.test,Candidate\n',
      );
      const run = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(
        await runCli(
          ['--target', 'local', '--store', join(dir, 'store'), 'user', 'sync', '--file', 'users.csv', '--json'],
          run.deps,
        ),
      ).toBe(0);
      const id = (JSON.parse(run.stdout.text) as { run: string }).run;
      // Since then, a default profile reads exports as windows-1252 and writes times in Berlin.
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'berlin',
            '--base-url',
            'https://exam.example.org',
            '--encoding',
            'windows-1252',
            '--timezone',
            'Europe/Berlin',
          ])
        ).code,
      ).toBe(0);
      const shown = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(await runCli(['runs', 'show', id, '--report', 'r.csv'], shown.deps), shown.stderr.text).toBe(0);
      const report = await readFile(join(dir, 'r.csv'), 'utf8');
      expect(report).toContain('u-1,Jürgen,Müller,');
    }));

  it('the encoding setting is resolved with its origin, for the command that reads it (strict: test/cli/strict.test.ts)', () =>
    withTempDir(async (dir) => {
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'school',
            '--base-url',
            'https://exam.example.org',
            '--strict',
            '--encoding',
            'windows-1252',
          ])
        ).code,
      ).toBe(0);
      const { deps } = testDeps(dir);
      const fromProfile = await inputShaping({}, deps, USER_COLUMNS, 'user sync');
      expect(fromProfile.encoding).toBe('windows-1252');
      const fromFlags = await inputShaping({ encoding: 'utf-8' }, deps, USER_COLUMNS, 'user sync');
      expect(fromFlags.encoding).toBe('utf-8');
      await writeFile(
        join(dir, '.config', 'config.json'),
        JSON.stringify({
          version: 1,
          defaultProfile: 'x',
          profiles: { x: { baseUrl: 'https://e.example', defaults: { encoding: 'klingon' } } },
        }),
        { mode: 0o600 },
      );
      await expect(inputShaping({}, deps, USER_COLUMNS, 'user sync')).rejects.toThrow(
        'profile x: encoding klingon: not an encoding name examctl knows',
      );
    }));

  it("review-session show writes in the profile's zone, date format, delimiter and decimal separator; a flag wins", () =>
    withTempDir(async (dir) => {
      const store = ['--target', 'local', '--store', join(dir, 'store')];
      expect((await cli(dir, ['local', 'init', '--store', join(dir, 'store')])).code).toBe(0);
      expect(
        (
          await cli(dir, [
            'config',
            'set-profile',
            'london',
            '--base-url',
            'https://exam.example.org',
            '--timezone',
            'Europe/London',
            '--date-format',
            'DD/MM/YYYY HH:mm',
            '--delimiter',
            ';',
            '--decimal-separator',
            ',',
          ])
        ).code,
      ).toBe(0);
      const csv = await cli(dir, [
        '--profile',
        'london',
        ...store,
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
      ]);
      expect(csv.code, csv.stderr).toBe(0);
      const lines = csv.stdout.replace(/^\ufeff/, '').split('\r\n');
      expect(lines[0]).toContain(';LastSatDate;PassedStatus;Score;');
      // 2026-10-13T18:21:00Z is 19:21 in London; 87.5 with the profile's comma.
      expect(lines.find((line) => line.startsWith('c-1001;'))).toContain(';13/10/2026 19:21;');
      expect(lines.find((line) => line.startsWith('c-1001;'))).toContain(';"87,5";');
      const flagged = await cli(dir, [
        '--profile',
        'london',
        ...store,
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
        '--timezone',
        'UTC',
        '--delimiter',
        ',',
        '--decimal-separator',
        '.',
      ]);
      const row = flagged.stdout.split('\r\n').find((line) => line.startsWith('c-1001,'));
      expect(row).toContain(',13/10/2026 18:21,');
      expect(row).toContain(',87.5,');
      const table = await cli(dir, ['--profile', 'london', ...store, 'review-session', 'show', 'RS-MATH1-OCT']);
      expect(table.stdout).toMatch(/Times +│ Europe\/London \(profile london\), DD\/MM\/YYYY HH:mm/);
      // With a profile that says nothing of them (or none), files keep the UTC the service sent.
      expect((await cli(dir, ['config', 'set-profile', 'plain', '--base-url', 'https://exam.example.org'])).code).toBe(
        0,
      );
      const plain = await cli(dir, [
        '--profile',
        'plain',
        ...store,
        'review-session',
        'show',
        'RS-MATH1-OCT',
        '-o',
        'csv',
      ]);
      expect(plain.stdout).toContain('2026-10-13T18:21:00.000Z');
    }));
});
