import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import { BIN } from '../support/cli.js';

/** An output never replaces what a run reads or keeps, whatever named it (found by trial 5: f02, f09). */
async function cli(dir: string, argv: string[]) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), HOME: dir });
  const code = await runCli(argv, io.deps);
  return { code, stderr: io.stderr.text };
}

const USERS = 'ExternalId,FirstName,LastName,Role\nu-1,A,B,Candidate\n';

describe('an output over what the run reads or keeps', () => {
  it('--report over the config file, or the map or token file the profile names: exit 2, each file kept', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      writeFileSync(join(dir, 'map.json'), JSON.stringify({ ID: 'ExternalId' }));
      writeFileSync(join(dir, 'tok.json'), 'a-token\n');
      chmodSync(join(dir, 'tok.json'), 0o600);
      const profile = [
        'config',
        'set-profile',
        'p',
        '--base-url',
        'https://exam.example.test',
        '--token-file',
        join(dir, 'tok.json'),
        '--map-file',
        join(dir, 'map.json'),
      ];
      expect((await cli(dir, profile)).code).toBe(0);
      const config = readFileSync(join(dir, '.config', 'config.json'), 'utf8');
      const cases = [
        ['.config/config.json', 'is the config file'],
        ['map.json', "is profile p's mapFile"],
        ['tok.json', "is profile p's tokenFile"],
      ];
      for (const [report, words] of cases) {
        const run = await cli(dir, ['user', 'sync', '--file', 'users.csv', '--dry-run', '--report', report!]);
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `--report ${report} ${words}`);
      }
      expect(readFileSync(join(dir, '.config', 'config.json'), 'utf8')).toBe(config);
      expect(readFileSync(join(dir, 'map.json'), 'utf8')).toBe('{"ID":"ExternalId"}');
      expect(readFileSync(join(dir, 'tok.json'), 'utf8')).toBe('a-token\n');
    }));

  // trial46 F03: login --profile prod keeps prod's token in the config folder; another profile in use.
  it("--out over another profile's tokenFile or mapFile than the one in use: exit 2, each kept", () =>
    withTempDir(async (dir) => {
      const config = join(dir, '.config');
      mkdirSync(config, { recursive: true, mode: 0o700 });
      writeFileSync(join(config, 'prod.token'), 'a-token\n', { mode: 0o600 });
      writeFileSync(join(dir, 'map.json'), '{"ID":"ExternalId"}');
      const prod = [
        'config',
        'set-profile',
        'prod',
        '--base-url',
        'https://exam.example.test',
        '--token-file',
        join(config, 'prod.token'),
        '--map-file',
        join(dir, 'map.json'),
      ];
      for (const argv of [prod, ['config', 'set-profile', 'loc'], ['config', 'use', 'loc']])
        expect((await cli(dir, argv)).code).toBe(0);
      for (const [out, words] of [
        [join(config, 'prod.token'), "profile prod's tokenFile"],
        ['map.json', "profile prod's mapFile"],
      ]) {
        const run = await cli(dir, ['template', 'users', '--out', out!]);
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `--out ${out} is ${words}`);
      }
      expect(readFileSync(join(config, 'prod.token'), 'utf8')).toBe('a-token\n');
      expect(readFileSync(join(dir, 'map.json'), 'utf8')).toBe('{"ID":"ExternalId"}');
    }));

  it('local export --out into its store and synced export --out the memory file: exit 2, both still load', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const local = ['--target', 'local', '--store', 'store'];
      expect((await cli(dir, [...local, '--yes', 'user', 'sync', '--file', 'users.csv', '--changed-only'])).code).toBe(
        0,
      );
      const journal = join('store', readdirSync(join(dir, 'store')).find((name) => name.startsWith('journal-'))!);
      const store = await cli(dir, ['--store', 'store', 'local', 'export', '--out', journal]);
      expect(store.code).toBe(2);
      expectCoded(store.stderr, 'E2000', `--out ${journal}`, 'store');
      const memoryDir = readdirSync(join(dir, 'synced'))[0]!;
      const memory = join(dir, 'synced', memoryDir, 'users.ndjson');
      const before = readFileSync(memory, 'utf8');
      const exported = await cli(dir, [...local, 'synced', 'export', '--out', memory]);
      expect(exported.code).toBe(2);
      expect(exported.stderr).toContain("is in this run's store, runs or memories: give the output another name");
      expect(readFileSync(memory, 'utf8')).toBe(before);
      expect((await cli(dir, ['synced', 'show'])).code).toBe(0);
      expect((await cli(dir, [...local, '--dry-run', 'user', 'sync', '--file', 'users.csv'])).code).toBe(0);
    }));

  it("runs show --report over the run's input or the config file, an --out over its journal: exit 2, each kept", () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      expect((await cli(dir, ['--store', 'store', '--yes', 'user', 'sync', '--file', 'users.csv'])).code).toBe(0);
      writeFileSync(join(dir, '.config', 'config.json'), '{"version":1,"profiles":{}}');
      const input = await cli(dir, ['runs', 'show', 'last', '--report', 'users.csv']);
      expect(input.code).toBe(2);
      expectCoded(input.stderr, 'E2000', '--report users.csv', '--file');
      const config = await cli(dir, ['runs', 'show', 'last', '--report', '.config/config.json']);
      expect(config.code).toBe(2);
      expect(readFileSync(join(dir, 'users.csv'), 'utf8')).toBe(USERS);
      expect(readFileSync(join(dir, '.config', 'config.json'), 'utf8')).toBe('{"version":1,"profiles":{}}');
      const journal = join('runs', readdirSync(join(dir, 'runs'))[0]!, 'journal.ndjson');
      const kept = readFileSync(join(dir, journal), 'utf8');
      const own = await cli(dir, ['--store', 'store', 'local', 'export', '--out', journal]);
      expect(own.code).toBe(2);
      expectCoded(own.stderr, 'E2000', `--out ${journal}`, 'store');
      expect(readFileSync(join(dir, journal), 'utf8')).toBe(kept);
      expect((await cli(dir, ['runs', 'show', 'last', '--report', 'r.csv'])).code).toBe(0);
    }));

  // trial6 5: only the real store, run folders and memories are refused, not folders that look alike.
  it('a report beside a file named CURRENT, in a folder of the runs directory or of the sync directory that is no run or memory: written', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      for (const folder of ['proj', 'runs/reports', 'synced/nightly'])
        mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, 'proj', 'CURRENT'), 'v1.4\n');
      for (const report of ['proj/users.xml', 'runs/reports/users.xml', 'synced/nightly/users.xml']) {
        const run = await cli(dir, [
          '--store',
          'store',
          '--yes',
          'user',
          'sync',
          '--file',
          'users.csv',
          '--changed-only',
          '--report',
          report,
        ]);
        expect(run.code, run.stderr).toBe(0);
        expect(readFileSync(join(dir, report), 'utf8')).toContain('<testsuite');
      }
    }));

  // trial16 f06: a store, run or memory is told by its own files, whichever directory it is in.
  it("--out or --report over another store's files, another runs directory's run, another sync directory's memory, or the config file not made yet: exit 2, each kept", () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      for (const store of ['staging', 'prod'])
        expect((await cli(dir, ['--store', store, 'local', 'init'])).code).toBe(0);
      const other = [
        '--target',
        'local',
        '--store',
        'prod',
        '--runs-dir',
        join(dir, 'other-runs'),
        '--yes',
        'user',
        'sync',
        '--sync-dir',
        join(dir, 'other-synced'),
      ];
      const fed = await cli(dir, [...other, '--file', 'users.csv', '--changed-only']);
      expect(fed.code, fed.stderr).toBe(0);
      const run = join('other-runs', readdirSync(join(dir, 'other-runs'))[0]!);
      const memory = join('other-synced', readdirSync(join(dir, 'other-synced'))[0]!);
      const kept = () =>
        [
          'prod/CURRENT',
          'prod/INSTANCE',
          'prod/snapshot-1.ndjson',
          `${run}/journal.ndjson`,
          `${memory}/users.ndjson`,
        ].map((file) => readFileSync(join(dir, file), 'utf8'));
      const before = kept();
      const file = "is named or written as a store's, a run's or a memory's file";
      const cases: [string[], string][] = [
        [['--store', 'staging', 'local', 'export', '--out', 'prod/snapshot-1.ndjson'], file],
        [['template', 'users', '--out', 'prod/INSTANCE'], file],
        [
          [
            '--store',
            'prod',
            'synced',
            'export',
            '--target',
            'local',
            '--sync-dir',
            join(dir, 'other-synced'),
            '--out',
            'prod/CURRENT',
          ],
          "is in this run's store, runs or memories",
        ],
        [['--store', 'staging', 'local', 'export', '--out', `${run}/journal.ndjson`], file],
        [['--store', 'staging', 'local', 'export', '--out', `${memory}/users.ndjson`], file],
        [['--store', 'staging', 'local', 'export', '--out', '.config/config.json'], 'is the config file'],
      ];
      for (const [argv, words] of cases) {
        const refused = await cli(dir, argv);
        expect(refused.code, argv.join(' ')).toBe(2);
        expectCoded(refused.stderr, 'E2000', words);
      }
      expect(kept()).toEqual(before);
      expect(existsSync(join(dir, '.config', 'config.json'))).toBe(false);
      expect((await cli(dir, ['--store', 'prod', 'local', 'export'])).code).toBe(0);
      // A folder holding files of the same names that are not examctl's: the output is written.
      mkdirSync(join(dir, 'plain'));
      writeFileSync(join(dir, 'plain', 'users.ndjson'), '{"ExternalId":"u-1"}\n');
      writeFileSync(join(dir, 'plain', 'journal.ndjson'), '{"at":"2026-11-21"}\n');
      expect((await cli(dir, ['--store', 'staging', 'local', 'export', '--out', 'plain/world.json'])).code).toBe(0);
    }));

  // trial18 f02: copies of a store, a run's journal or a memory are kept beside outputs: a new name is written, only the copies refused.
  it('a new name beside a copy of a store, a journal or a memory: written; over a copy (by its name or first line): exit 2, kept', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const sync = ['--store', 'st', '--yes', 'user', 'sync', '--file', 'users.csv', '--changed-only'];
      expect((await cli(dir, sync)).code).toBe(0);
      const memory = join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'users.ndjson');
      for (const folder of ['nightly', 'ticket']) mkdirSync(join(dir, folder));
      cpSync(join(dir, 'st'), join(dir, 'backup'), { recursive: true });
      copyFileSync(memory, join(dir, 'nightly', 'users.ndjson'));
      copyFileSync(memory, join(dir, 'nightly', 'kept.txt'));
      copyFileSync(
        join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!, 'journal.ndjson'),
        join(dir, 'ticket', 'journal.ndjson'),
      );
      const written = [
        [...sync, '--report', 'nightly/night.xml'],
        ['--store', 'st', '--dry-run', 'user', 'sync', '--file', 'users.csv', '--report', 'ticket/rep.json'],
        ['--store', 'st', 'local', 'export', '--out', 'backup/export.ndjson'],
        ['--store', 'st', 'synced', 'export', '--out', 'nightly/mem.json'],
      ];
      for (const argv of written) {
        const run = await cli(dir, argv);
        expect(run.code, run.stderr).toBe(0);
        expect(existsSync(join(dir, argv.at(-1)!))).toBe(true);
      }
      const copies = [
        'nightly/users.ndjson',
        'nightly/kept.txt',
        'ticket/journal.ndjson',
        'backup/CURRENT',
        'backup/INSTANCE',
      ];
      const before = copies.map((file) => readFileSync(join(dir, file), 'utf8'));
      for (const out of copies) {
        const refused = await cli(dir, ['--store', 'st', 'local', 'export', '--out', out]);
        expect(refused.code).toBe(2);
        expectCoded(refused.stderr, 'E2000', `--out ${out}`, 'store');
      }
      expect(copies.map((file) => readFileSync(join(dir, file), 'utf8'))).toEqual(before);
      // trial23 f07: the memory's export is kept from a report; synced export itself replaces it.
      const exported = readFileSync(join(dir, 'nightly/mem.json'), 'utf8');
      const report = await cli(dir, [...sync, '--report', 'nightly/mem.json']);
      expect(report.code).toBe(2);
      expectCoded(report.stderr, 'E2000', '--report nightly/mem.json', 'synced export --out');
      expect(readFileSync(join(dir, 'nightly/mem.json'), 'utf8')).toBe(exported);
      expect((await cli(dir, ['--store', 'st', 'synced', 'export', '--out', 'nightly/mem.json'])).code).toBe(0);
      // An admin's own NDJSON named as a memory's file (template's output, an input) is replaced as any output.
      expect((await cli(dir, ['template', 'users', '--out', 'users.ndjson'])).code).toBe(0);
      expect((await cli(dir, ['template', 'users', '--out', 'users.ndjson'])).code).toBe(0);
    }));

  // trial40 F04: the memory's export and the store's world file are restore points: the command that wrote one replaces it (a nightly artifact), no other output does, nor its <name>.earlier.
  it("the sync memory's export and the store's world file: replaced only by their own export; every other output exit 2, kept; a <name>.earlier of them kept", () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const sync = ['--store', 'st', '--yes', 'user', 'sync', '--file', 'users.csv'];
      expect((await cli(dir, [...sync, '--changed-only'])).code).toBe(0);
      const exports = [
        ['mem.json', 'synced', "the sync memory's export (synced export --out), kept to restore it"],
        [
          'world.json',
          'local',
          "the local store's world file (local export --out), kept to restore it (local init --seed)",
        ],
      ] as const;
      const read = () => exports.map(([out]) => readFileSync(join(dir, out), 'utf8'));
      for (const [out, room] of exports) {
        for (const night of [1, 2])
          expect((await cli(dir, ['--store', 'st', room, 'export', '--out', out])).code, `night ${night}`).toBe(0);
      }
      const before = read();
      for (const [out, room, words] of exports) {
        const other = room === 'local' ? 'synced' : 'local';
        const outputs = [
          [...sync, '--dry-run', '--report'],
          ['template', 'users', '--out'],
          ['--store', 'st', 'review-session', 'show', 'RS-1', '--out'],
          ['--store', 'st', other, 'export', '--out'],
        ];
        for (const argv of outputs) {
          const run = await cli(dir, [...argv, out]);
          expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(2);
          expectCoded(run.stderr, 'E2000', `${argv.at(-1)} ${out} is ${words}`);
        }
      }
      expect(read()).toEqual(before);
      // A <name>.earlier (moved aside by a failed night) is one too: a good output of another kind at the name leaves it.
      copyFileSync(join(dir, 'mem.json'), join(dir, 'night.json.earlier'));
      copyFileSync(join(dir, 'world.json'), join(dir, 'r.json.earlier'));
      expect((await cli(dir, ['--store', 'st', 'local', 'export', '--out', 'night.json'])).code).toBe(0);
      expect((await cli(dir, [...sync, '--dry-run', '--report', 'r.json'])).code).toBe(0);
      expect([
        readFileSync(join(dir, 'night.json.earlier'), 'utf8'),
        readFileSync(join(dir, 'r.json.earlier'), 'utf8'),
      ]).toEqual(before);
    }));

  // trial46 F01, trial49 F05: a world file saved with CRLF, a BOM, as UTF-16, its keys sorted or a blank line first is still a seed local init takes.
  it('the world file with CRLF line ends, a BOM, as UTF-16, keys sorted or a blank line first (each a seed local init takes): --report and --out exit 2, kept', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      expect((await cli(dir, ['local', 'init', '--store', 'st'])).code).toBe(0);
      expect((await cli(dir, ['--store', 'st', 'local', 'export', '--out', 'world.json'])).code).toBe(0);
      const text = readFileSync(join(dir, 'world.json'), 'utf8');
      const copies = {
        'crlf.json': Buffer.from(text.replaceAll('\n', '\r\n')),
        'bom.json': Buffer.from(`\ufeff${text}`),
        'utf16.json': Buffer.from(`\ufeff${text}`, 'utf16le'),
        'lead.json': Buffer.from(`\n${text}`),
      };
      const world = JSON.parse(text) as Record<string, unknown>;
      Object.assign(copies, {
        'sorted.json': Buffer.from(
          JSON.stringify(
            Object.fromEntries(
              Object.keys(world)
                .sort()
                .map((key) => [key, world[key]]),
            ),
            null,
            2,
          ),
        ),
      });
      for (const [name, bytes] of Object.entries(copies)) {
        writeFileSync(join(dir, name), bytes);
        expect((await cli(dir, ['local', 'init', '--seed', name, '--store', `seeded-${name}`])).code, name).toBe(0);
        for (const argv of [
          ['--store', 'st', 'user', 'sync', '--file', 'users.csv', '--dry-run', '--report'],
          ['template', 'users', '--out'],
        ]) {
          const run = await cli(dir, [...argv, name]);
          expect(run.code, `${name}: ${run.stderr}`).toBe(2);
          expectCoded(run.stderr, 'E2000', `${argv.at(-1)} ${name}`, 'world file');
        }
        expect(readFileSync(join(dir, name)).equals(bytes), name).toBe(true);
      }
    }));

  it('the sync memory\'s export pretty-printed, a blank line first or "format" not first (synced import takes each back): --report exit 2, kept', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      const sync = ['--store', 'st', '--yes', 'user', 'sync', '--file', 'users.csv'];
      expect((await cli(dir, [...sync, '--changed-only'])).code).toBe(0);
      expect((await cli(dir, ['--store', 'st', 'synced', 'export', '--out', 'mem.json'])).code).toBe(0);
      const { format, ...rest } = JSON.parse(readFileSync(join(dir, 'mem.json'), 'utf8')) as Record<string, unknown>;
      const copies = {
        'pretty.json': `${JSON.stringify({ format, ...rest }, null, 2)}\n`,
        'lead.json': `\n${JSON.stringify({ format, ...rest })}`,
        'late.json': JSON.stringify({ version: rest.version, format, ...rest }),
      };
      for (const [name, text] of Object.entries(copies)) {
        writeFileSync(join(dir, name), text);
        expect((await cli(dir, ['--store', 'st', 'synced', 'import', name, '--force'])).code, name).toBe(0);
        const run = await cli(dir, [...sync, '--dry-run', '--report', name]);
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `--report ${name}`, 'synced export --out');
        expect(readFileSync(join(dir, name), 'utf8')).toBe(text);
      }
    }));

  // trial46 F02: an interrupted run's input is what `runs resume` reads again, unchanged.
  it("--report or --out over an unfinished run's input: exit 2 naming the run, kept; over a finished run's input: written", () =>
    withTempDir(async (dir) => {
      const { RunJournal } = await import('../../src/runs/run-journal.js');
      const { fingerprintInput } = await import('../../src/runs/resume-plan.js');
      writeFileSync(join(dir, 'night.csv'), USERS);
      writeFileSync(join(dir, 'done.csv'), USERS);
      const options = { file: 'night.csv', cwd: dir };
      const started = await RunJournal.start(join(dir, 'runs'), {
        command: 'user sync',
        options,
        target: { kind: 'local', store: join(dir, 'st') },
        input: await fingerprintInput(join(dir, 'night.csv')),
      });
      await started.close();
      for (const argv of [
        ['--store', 'st', 'user', 'sync', '--file', 'done.csv', '--dry-run', '--report'],
        ['template', 'users', '--out'],
      ]) {
        const run = await cli(dir, [...argv, 'night.csv']);
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `${argv.at(-1)} night.csv`, `unfinished run ${started.id}`, 'runs resume');
      }
      expect(readFileSync(join(dir, 'night.csv'), 'utf8')).toBe(USERS);
      expect((await cli(dir, ['--store', 'st', '--yes', 'user', 'sync', '--file', 'done.csv'])).code).toBe(0);
      expect((await cli(dir, ['template', 'users', '--out', 'done.csv'])).code).toBe(0);
    }));

  // trial49 F06: a file kept with its SHA-256 (--map-file, --schedule, the profile's map) is read again by a resume as the input is.
  it("--out over an unfinished run's --map-file, --schedule or profile map: exit 2 naming the run, kept", () =>
    withTempDir(async (dir) => {
      const { RunJournal } = await import('../../src/runs/run-journal.js');
      const { fingerprintInput } = await import('../../src/runs/resume-plan.js');
      mkdirSync(join(dir, 'conf'));
      for (const name of ['night.csv', 'map.json', 'sched.json', 'conf/pmap.json'])
        writeFileSync(join(dir, name), '{}');
      const options = {
        file: 'night.csv',
        mapFile: 'map.json',
        mapFileSha256: 'a',
        schedule: 'sched.json',
        scheduleSha256: 'b',
        cwd: dir,
      };
      const profile = {
        name: 'p',
        defaults: { mapFile: 'pmap.json' },
        configDir: join(dir, 'conf'),
        mapFileSha256: 'c',
      };
      const started = await RunJournal.start(join(dir, 'runs'), {
        command: 'user sync',
        options,
        profile,
        target: { kind: 'local', store: join(dir, 'st') },
        input: await fingerprintInput(join(dir, 'night.csv')),
      });
      await started.close();
      for (const name of ['map.json', 'sched.json', 'conf/pmap.json']) {
        const run = await cli(dir, ['template', 'users', '--out', name]);
        expect(run.code, run.stderr).toBe(2);
        expectCoded(run.stderr, 'E2000', `--out ${name}`, `unfinished run ${started.id}`, 'runs resume');
        expect(readFileSync(join(dir, name), 'utf8')).toBe('{}');
      }
    }));

  // trial16 f05: stdin redirected from the file the report names is that file, as --file /dev/stdin is.
  it('--file - with stdin redirected from the --report file: exit 2 before anything is sent, the input kept', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'users.csv'), USERS);
      writeFileSync(
        join(dir, 'users.json'),
        JSON.stringify([{ ExternalId: 'u-1', FirstName: 'A', LastName: 'B', Role: 'Candidate' }]),
      );
      const examctl = `"${process.execPath}" "${BIN}" --target local --store store --yes user sync --file -`;
      const script = `${examctl} --dry-run --report users.csv < users.csv; echo "csv $?"; ${examctl} --report users.json < users.json; echo "json $?"; ${examctl} --report r.json < users.json; echo "other $?"`;
      const out = execFileSync('bash', ['-c', `{ ${script}; } 2>&1`], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir, EXAMCTL_CONFIG_DIR: join(dir, '.config') },
        encoding: 'utf8',
      });
      expect(out).toMatch(
        /--report users\.csv is the --file - \(stdin\) this run reads: give the output another name\ncsv 2\n/,
      );
      expect(out).toMatch(/--report users\.json is the --file - \(stdin\) this run reads[^\n]*\njson 2\n/);
      expect(out).toMatch(/\nother 0\n$/);
      expect(readFileSync(join(dir, 'users.csv'), 'utf8')).toBe(USERS);
      expect(readFileSync(join(dir, 'users.json'), 'utf8')).toContain('"ExternalId":"u-1"');
    }));
});
