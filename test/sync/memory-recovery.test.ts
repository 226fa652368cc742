import { hash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { StoreLock } from '../../src/system/lock.js';
import { canonicalJson, type MemoryEntry } from '../../src/sync/memory-lines.js';
import { memoryDir } from '../../src/context/target.js';
import { readMemory } from '../../src/sync/memory-files.js';
import { ROOT } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { testDeps, withTempDir } from '../cli/helpers.js';

/**
 * The ways back from a lost memory, in-process through the real CLI on the local target
 * (docs/sync.md, "When the memory is lost"): synced export and import with their refusals, synced
 * adopt recording exactly what a real run of the file would, adopt-schedules, a memory line of the
 * wrong types refused naming its line, a memory of format 1 read and rewritten, the stale resume
 * refused across runs directories, and doctor's word on the memory.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role,Hierarchies';

function writeUsers(
  dir: string,
  name: string,
  rows: readonly (readonly [string, string])[],
  bad: readonly string[] = [],
): void {
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...rows.map(([id, links]) => `${id},First,Last ${id},${bad.includes(id) ? 'not-an-email' : `${id}@example.test`},name-${id},Candidate,${links}`)].join('\n')}\n`,
  );
}

const rows = (count: number, prefix = 'mr'): [string, string][] =>
  Array.from({ length: count }, (_, i) => [
    `${prefix}-${i}`,
    i % 3 === 0 ? 'H-NORTH:coordinator' : i % 3 === 1 ? 'H-SOUTH' : '',
  ]);

async function cli(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(
    dir,
    {},
    {
      EXAMCTL_RUNS_DIR: join(dir, 'runs'),
      EXAMCTL_SYNC_DIR: join(dir, 'synced'),
      EXAMCTL_LOCK_TIMEOUT_MS: '0',
      ...env,
    },
  );
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

const local = (store = 'store') => ['--target', 'local', '--store', store];
const nightly = ['--changed-only', '--disable-missing', '--prune-memberships', '--json'];

/** The ids a run's --json report says it sent (not unchanged), sorted. */
const sentIds = (stdout: string): string[] =>
  (JSON.parse(stdout) as { items: { id: string; action?: string }[] }).items
    .filter((item) => item.action !== 'unchanged')
    .map((item) => item.id)
    .sort();

function memoryText(dir: string, store = 'store', syncDir = 'synced'): string {
  return readFileSync(
    join(memoryDir(join(dir, syncDir), { kind: 'local', store: join(dir, store) }), 'users.ndjson'),
    'utf8',
  );
}

describe('synced export and import', () => {
  it('export: one 0600 file naming target, format and newest run, with a checksum; nothing to export is exit 2', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['synced', 'export', ...local(), '--out', 'm.json'])).code).toBe(2);
      writeUsers(dir, 'users.csv', rows(5));
      const synced = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        ...local(),
        '--population',
        'staff',
        '--json',
      ]);
      expect(synced.code, synced.stderr).toBe(0);
      const run = (JSON.parse(synced.stdout) as { run: string }).run;
      const exported = await cli(dir, ['synced', 'export', ...local(), '--out', 'm.json', '--json']);
      expect(exported.code, exported.stderr).toBe(0);
      expect(statSync(join(dir, 'm.json')).mode & 0o777).toBe(0o600);
      const document = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as Record<string, unknown> & {
        sha256: string;
      };
      expect(document).toMatchObject({
        format: 'examctl-sync-memory',
        version: 1,
        identity: `local ${join(dir, 'store')}`,
        memoryFormat: 4,
        newestRun: run,
        populations: { users: [{ population: 'staff', newestRun: run, count: 5 }] },
      });
      const { sha256, ...body } = document;
      expect(sha256).toBe(hash('sha256', canonicalJson(body), 'hex'));
      expect(JSON.parse(exported.stdout)).toMatchObject({ newestRun: run, memories: { users: { ids: 5 } } });
      // One population: its newest run is said once.
      const said = await cli(dir, ['synced', 'export', ...local(), '--out', 'm2.json']);
      expect(said.stderr.split(run).length - 1, said.stderr).toBe(1);
      // Into a directory not made yet: the directory is named as missing, not the file.
      const nowhere = await cli(dir, ['synced', 'export', ...local(), '--out', join('kept', 'm.json')]);
      expect(nowhere.code).toBe(2);
      expect(nowhere.stderr).toContain(`cannot write ${join('kept', 'm.json')}: the directory does not exist (ENOENT)`);
    }));

  it('import refuses another target, a store holding none of its heads, a damaged file, a newer format, and a memory another run holds; nothing written', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(3));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()])).code).toBe(0);
      expect((await cli(dir, ['synced', 'export', ...local(), '--out', 'm.json'])).code).toBe(0);
      const text = readFileSync(join(dir, 'm.json'), 'utf8');

      const other = await cli(dir, ['synced', 'import', 'm.json', ...local('other')]);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/^examctl: E2504: m\.json: /m);
      expect(other.stderr).toContain(join(dir, 'other'));
      expect(other.stderr).toContain(`--store ${join(dir, 'store')}`);

      writeFileSync(join(dir, 'damaged.json'), text.replace('"count":3', '"count":4'));
      const damaged = await cli(dir, ['synced', 'import', 'damaged.json', ...local()]);
      expect(damaged.code).toBe(2);
      expectCoded(damaged.stderr, 'E2507', 'damaged.json: ', 'checksum');
      writeFileSync(join(dir, 'cut.json'), text.slice(0, 200));
      expectCoded((await cli(dir, ['synced', 'import', 'cut.json', ...local()])).stderr, 'E2507', 'cut.json: ', 'JSON');

      const { sha256: _sha, ...body } = JSON.parse(text) as Record<string, unknown>;
      const newer = { ...body, version: 2 };
      writeFileSync(
        join(dir, 'newer.json'),
        JSON.stringify({ ...newer, sha256: hash('sha256', canonicalJson(newer), 'hex') }),
      );
      expectCoded(
        (await cli(dir, ['synced', 'import', 'newer.json', ...local()])).stderr,
        'E2505',
        'newer.json: ',
        'format 2',
        'reads 1',
      );

      const memory = memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') });
      const lock = new StoreLock(memory, 0);
      await lock.acquire();
      try {
        const held = await cli(dir, ['synced', 'import', 'm.json', ...local()]);
        expect(held.code).toBe(3);
        expectCoded(held.stderr, 'E3021', memory, `pid ${process.pid}`);
        const adopt = await cli(dir, ['synced', 'adopt', '--file', 'users.csv', ...local()]);
        expect(adopt.code).toBe(3);
      } finally {
        await lock.release();
      }

      const before = memoryText(dir);
      expect((await cli(dir, ['local', 'init', '--store', 'store', '--force'])).code).toBe(0);
      const replaced = await cli(dir, ['synced', 'import', 'm.json', ...local()]);
      expect(replaced.code).toBe(2);
      expectCoded(replaced.stderr, 'E2504', 'holds none of the store heads');
      expect(before).toContain('"t":"population"');
    }));
});

describe('the collections examctl sent travel with the memory', () => {
  it('a collection job run again after the memory was lost and imported is unchanged (exit 0), not a failure', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'c.json'), JSON.stringify({ Title: 'Biology 2027', ExternalId: 'bio2027' }));
      expect((await cli(dir, ['collection', 'add', '--file', 'c.json', ...local()])).code).toBe(0);
      const exported = await cli(dir, ['synced', 'export', ...local(), '--out', 'm.json']);
      expect(exported.code, exported.stderr).toBe(0);
      expect(
        Object.keys((JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')) as { memories: object }).memories),
      ).toEqual(['collections']);
      rmSync(join(dir, 'synced'), { recursive: true });
      const lost = await cli(dir, ['collection', 'add', '--file', 'c.json', ...local(), '--existing', 'ok']);
      expect(lost.code).toBe(1);
      expect(lineWith(lost.stdout + lost.stderr, ' 810 ', 'no record', 'synced adopt-collections')).toBeTruthy();
      // The run after the loss is on record (its store head too, as a user sync's): an older export needs --force.
      expect((await cli(dir, ['synced', 'import', 'm.json', ...local()])).code).toBe(2);
      const imported = await cli(dir, ['synced', 'import', 'm.json', ...local(), '--force']);
      expect(imported.code, imported.stderr).toBe(0);
      const again = await cli(dir, ['collection', 'add', '--file', 'c.json', ...local(), '--existing', 'ok', '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { items: { action?: string }[] }).items[0]!.action).toBe('unchanged');
    }));

  it('an export older than the collections memory is refused by synced import, as for users and schedules (trial11 F04)', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(1));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()])).code).toBe(0);
      expect((await cli(dir, ['synced', 'export', ...local(), '--out', 'night1.json'])).code).toBe(0);
      expect(
        (await cli(dir, ['collection', 'add', '--external-id', 'chem1', '--title', 'Chem', ...local()])).code,
      ).toBe(0);
      const older = await cli(dir, ['synced', 'import', 'night1.json', ...local()]);
      expect(older.code).toBe(2);
      expectCoded(older.stderr, 'E2506', 'night1.json', '--force');
      const kept = await cli(dir, [
        'collection',
        'add',
        '--external-id',
        'chem1',
        '--title',
        'Chem',
        ...local(),
        '--existing',
        'ok',
      ]);
      expect(kept.code, kept.stderr).toBe(0);
    }));
});

describe('synced adopt-collections', () => {
  /** A store holding `collection`, made by a run whose memory is elsewhere (this one is lost). */
  async function madeByAnotherMemory(dir: string, collection: object): Promise<void> {
    expect((await cli(dir, ['local', 'init', '--store', 'store'])).code).toBe(0);
    writeFileSync(join(dir, 'made.json'), JSON.stringify([collection]));
    const made = await cli(dir, ['collection', 'add', '--file', 'made.json', ...local()], {
      EXAMCTL_SYNC_DIR: join(dir, 'other'),
    });
    expect(made.code, made.stderr).toBe(0);
  }

  it('records the collections checked on the platform, each with its fields; one without an ExternalId is not adopted (exit 1, named)', () =>
    withTempDir(async (dir) => {
      await madeByAnotherMemory(dir, { ExternalId: 'bio2027', Title: 'Biology 2027' });
      writeFileSync(
        join(dir, 'c.json'),
        JSON.stringify([{ ExternalId: 'bio2027', Title: 'Biology 2027' }, { Title: 'Named anew each run' }]),
      );
      const adopted = await cli(dir, ['synced', 'adopt-collections', '--file', 'c.json', ...local()]);
      expect(adopted.code).toBe(1);
      expect(adopted.stderr).toContain(
        'no ExternalId: each run names such a collection anew, so there is nothing to adopt',
      );
      expect(lineWith(adopted.stderr, 'adopted 1 collection ', 'c.json', 'local store')).toBeTruthy();
      // Taken for examctl's own by --existing ok, with the file's fields.
      const memory = readFileSync(
        join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'collections.ndjson'),
        'utf8',
      );
      expect(memory).toContain('"id":"bio2027"');
      expect(memory).toContain('"s":{"Title":"\\"Biology 2027\\""}');
    }));

  it('on a local store, as adopt and adopt-schedules: a collection the store does not hold, or holds with other values, is not adopted (9019, named, exit 1)', () =>
    withTempDir(async (dir) => {
      await madeByAnotherMemory(dir, { ExternalId: 'chem2027', Title: 'Chemistry' });
      writeFileSync(
        join(dir, 'c.json'),
        JSON.stringify([
          { ExternalId: 'never2027', Title: 'Never sent' },
          { ExternalId: 'chem2027', Title: 'Chemistry (renamed)' },
        ]),
      );
      for (const dryRun of [['--dry-run'], []]) {
        const adopted = await cli(dir, ['synced', 'adopt-collections', '--file', 'c.json', ...local(), ...dryRun]);
        expect(adopted.code, adopted.stderr).toBe(1);
        expect(lineWith(adopted.stderr, '[never2027]', 'not adopted', '9019', 'not on the local store')).toBeTruthy();
        expect(lineWith(adopted.stderr, '[chem2027]', 'not adopted', '9019', 'other values (Title)')).toBeTruthy();
        expect(lineWith(adopted.stderr, ' 0 collections of c.json', '2 rows were not adopted')).toBeTruthy();
      }
      const memories = existsSync(join(dir, 'synced')) ? readdirSync(join(dir, 'synced')) : [];
      for (const memory of memories) {
        const file = join(dir, 'synced', memory, 'collections.ndjson');
        if (existsSync(file)) expect(readFileSync(file, 'utf8')).not.toMatch(/never2027|chem2027/);
      }
    }));

  it('a collection not adopted leaves the memory as it was: the next --existing ok of the file examctl sent stays ok', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init', '--store', 'store'])).code).toBe(0);
      writeFileSync(join(dir, 'c.json'), JSON.stringify([{ ExternalId: 'bio2027', Title: 'Biology 2027' }]));
      writeFileSync(join(dir, 'renamed.json'), JSON.stringify([{ ExternalId: 'bio2027', Title: 'Biology (renamed)' }]));
      expect((await cli(dir, ['collection', 'add', '--file', 'c.json', ...local()])).code).toBe(0);
      const refused = await cli(dir, ['synced', 'adopt-collections', '--file', 'renamed.json', ...local()]);
      expect(lineWith(refused.stderr, '[bio2027]', 'not adopted', '9019', 'other values (Title)')).toBeTruthy();
      const again = await cli(dir, ['collection', 'add', '--file', 'c.json', '--existing', 'ok', ...local()]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('1 ok: 1 unchanged');
    }));

  it('is not said to be "older than" the collection runs after it (they put no population on record): no warning on the nights that follow', () =>
    withTempDir(async (dir) => {
      expect((await cli(dir, ['local', 'init', '--store', 'store'])).code).toBe(0);
      writeFileSync(join(dir, 'c.json'), JSON.stringify([{ ExternalId: 'bio2027', Title: 'Biology 2027' }]));
      expect((await cli(dir, ['collection', 'add', '--file', 'c.json', ...local()])).code).toBe(0);
      expect((await cli(dir, ['synced', 'adopt-collections', '--file', 'c.json', ...local()])).code).toBe(0);
      for (let night = 1; night <= 2; night++) {
        const again = await cli(dir, ['collection', 'add', '--file', 'c.json', '--existing', 'ok', ...local()]);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).toContain('1 ok: 1 unchanged');
        expect(again.stderr).not.toContain('older than run');
      }
    }));

  it('a collection sent from flags whose answer was lost: the failure quotes the file to write, and adopting it turns the job green (trial11 F11)', () =>
    withTempDir(async (dir) => {
      const flags = [
        'collection',
        'add',
        '--external-id',
        'physics2027',
        '--title',
        'Physics',
        '--taxonomy',
        'TX-BLOOM',
        ...local(),
      ];
      expect((await cli(dir, flags)).code).toBe(0);
      // The answer lost: the memory holds the intent written before the request, not its ok.
      const file = join(dir, 'synced', readdirSync(join(dir, 'synced'))[0]!, 'collections.ndjson');
      writeFileSync(file, readFileSync(file, 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
      const lost = await cli(dir, [...flags, '--existing', 'ok']);
      expect(lost.code).toBe(1);
      const quoted =
        /adopt-collections --file F records it as examctl's \(F: the file this run read or, from flags, a \.json file holding (\{.*\})\)/.exec(
          lost.stderr,
        );
      expect(quoted, lost.stderr).not.toBeNull();
      writeFileSync(join(dir, 'physics.json'), quoted![1]!);
      expect((await cli(dir, ['synced', 'adopt-collections', '--file', 'physics.json', ...local()])).code).toBe(0);
      const green = await cli(dir, [...flags, '--existing', 'ok']);
      expect(green.code, green.stderr).toBe(0);
      expect(green.stderr).toContain('1 ok: 1 unchanged');
    }));
});

describe('synced adopt', () => {
  it('records exactly what a real run of the file leaves in the memory (digests, raw digests, names, links and flags, population)', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(12));
      const real = await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'], {
        EXAMCTL_SYNC_DIR: join(dir, 'real'),
      });
      expect(real.code, real.stderr).toBe(0);
      const adopted = await cli(
        dir,
        ['synced', 'adopt', '--file', 'users.csv', ...local(), '--population', 'staff', '--json'],
        { EXAMCTL_SYNC_DIR: join(dir, 'adopted') },
      );
      expect(adopted.code, adopted.stderr).toBe(0);
      expect(JSON.parse(adopted.stdout)).toMatchObject({
        adopted: 12,
        new: 12,
        replaced: 0,
        notAdopted: [],
        population: 'staff',
        dryRun: false,
      });
      const target = { kind: 'local', store: join(dir, 'store') } as const;
      const entries = async (syncDir: string) => {
        const contents = await readMemory(join(memoryDir(join(dir, syncDir), target), 'users.ndjson'), 'users', target);
        const byId: Record<string, Omit<MemoryEntry, 'run' | 'joined'>> = {};
        // Not the run that created a user: an adoption knows none (docs/sync.md, "Stale input").
        for (const [id, { run: _run, joined: _joined, acked: _acked, ...entry }] of contents.entries) byId[id] = entry;
        return byId;
      };
      const fromRun = await entries('real');
      expect(Object.keys(fromRun)).toHaveLength(12);
      expect(fromRun['mr-0']).toMatchObject({
        links: [['H-NORTH', ['coordinator']]],
        population: 'staff',
        firstName: 'First',
      });
      expect(fromRun['mr-0']?.raw).toBeDefined();
      expect(await entries('adopted')).toEqual(fromRun);
    }));

  it('rows that do not validate are not adopted (exit 1, each named); the next night sends only them', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(6), ['mr-2']);
      const noStore = await cli(dir, ['synced', 'adopt', '--file', 'users.csv', ...local()]);
      expect(noStore.code).toBe(2);
      expectCoded(noStore.stderr, 'E2302', `no local store at ${join(dir, 'store')}`);
      // The store holds what a night whose memory was lost sent (on a local store only what it holds is adopted).
      expect(
        (await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()], { EXAMCTL_SYNC_DIR: join(dir, 'lost') }))
          .code,
      ).toBe(1);
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'users.csv', ...local()]);
      expect(adopted.code).toBe(1);
      expect(lineWith(adopted.stderr, 'users.csv:4 [mr-2]: ', 'Email')).toBeTruthy();
      expect(adopted.stderr).toMatch(
        /adopted 5 users of users\.csv into the sync memory of local store .* for the runs without --population \(run \S+: 5 new, 0 replaced\); 1 row was not adopted \(above\): it goes the next night/,
      );
      writeUsers(dir, 'users.csv', rows(6));
      const night = await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), ...nightly, '--require-memory']);
      expect(night.code, night.stderr).toBe(0);
      const items = (JSON.parse(night.stdout) as { items: { id: string; action?: string }[] }).items;
      expect(items.filter((item) => item.action !== 'unchanged').map((item) => item.id)).toEqual(['mr-2']);
    }));

  it('on a local store only a row the store holds as the file gives it is adopted: the rest named with their fields (exit 1), the next night sends them', () =>
    withTempDir(async (dir) => {
      // File A, 20 users; m11: 3 rows changed (mr-7 in 4 fields), 2 users left out (disabled by the night).
      const a = rows(20);
      writeUsers(dir, 'a.csv', a);
      const changed = new Set(['mr-4', 'mr-7', 'mr-9']);
      const m11 = a
        .filter(([id]) => id !== 'mr-18' && id !== 'mr-19')
        .map(([id, links]): [string, string] => [id, changed.has(id) && id !== 'mr-9' ? 'H-NORTH:coordinator' : links]);
      writeFileSync(
        join(dir, 'm11.csv'),
        `${[HEADER, ...m11.map(([id, links]) => `${id},${changed.has(id) ? 'Renamed' : 'First'},Last ${id}${id === 'mr-7' ? ' Moved' : ''},${id}@${id === 'mr-7' ? 'moved' : 'example'}.test,name-${id},Candidate,${links}`)].join('\n')}\n`,
      );
      const sync = (file: string, ...more: string[]) =>
        cli(dir, ['user', 'sync', '--file', file, ...local(), ...nightly, '--max-disable', '100%', '--yes', ...more]);
      const restoreLosingMemory = (copy: string) => {
        rmSync(join(dir, 'store'), { recursive: true });
        cpSync(join(dir, copy), join(dir, 'store'), { recursive: true });
        rmSync(join(dir, 'synced'), { recursive: true });
      };
      // Every row of `file` as the store holds it: its first name, enabled, each link of its cell.
      const expectHeld = async (file: readonly (readonly [string, string])[], renamed: ReadonlySet<string>) => {
        const users = (
          JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
            Users: {
              ExternalId: string;
              FirstName: string;
              DisableLogin?: boolean;
              Hierarchies?: { ExternalId: string }[];
            }[];
          }
        ).Users;
        for (const [id, links] of file) {
          const user = users.find((each) => each.ExternalId === id);
          expect(user?.FirstName, id).toBe(renamed.has(id) ? 'Renamed' : 'First');
          expect(user?.DisableLogin === true, id).toBe(false);
          const held = (user?.Hierarchies ?? []).map((link) => link.ExternalId);
          for (const link of links.split('|').filter((cell) => cell !== ''))
            expect(held, id).toContain(link.split(':')[0]);
        }
      };
      expect((await sync('a.csv')).code).toBe(0);
      cpSync(join(dir, 'store'), join(dir, 'backup'), { recursive: true });
      expect((await sync('m11.csv')).code).toBe(0);
      cpSync(join(dir, 'store'), join(dir, 'after-m11'), { recursive: true });
      // The store back at A's state, the memory lost, m11 adopted.
      restoreLosingMemory('backup');
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'm11.csv', ...local(), '--json']);
      expect(adopted.code, adopted.stderr).toBe(1);
      const document = JSON.parse(adopted.stdout) as {
        adopted: number;
        notAdopted: { id: string; errors: { field: string; message: string }[] }[];
      };
      expect(document.adopted).toBe(15);
      expect(document.notAdopted.map((row) => row.id).sort()).toEqual(['mr-4', 'mr-7', 'mr-9']);
      // mr-4: FirstName and a link (H-SOUTH becomes H-NORTH:coordinator); mr-9: FirstName only.
      const fields = (id: string) => document.notAdopted.find((row) => row.id === id)?.errors[0]?.message ?? '';
      expect(fields('mr-4')).toContain('FirstName, Hierarchies');
      // mr-7: four fields differ, three named then a count.
      expect(fields('mr-7')).toContain('FirstName, LastName, Email and 1 more');
      expect(fields('mr-9')).toContain('FirstName');
      expect(fields('mr-9')).not.toContain('Hierarchies');
      expect(lineWith(adopted.stderr, 'm11.csv:6 [mr-4]: ', 'FirstName')).toBeTruthy();
      // The next night sends exactly those 3: the store then holds every row as m11 gives it.
      const next = await sync('m11.csv', '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(sentIds(next.stdout)).toEqual(['mr-4', 'mr-7', 'mr-9']);
      await expectHeld(m11, changed);
      // The other way: the store after m11's night (mr-18, mr-19 disabled), the memory lost, A adopted:
      // the disabled users A lists and the rows m11 changed are not adopted.
      restoreLosingMemory('after-m11');
      const back = await cli(dir, ['synced', 'adopt', '--file', 'a.csv', ...local(), '--json']);
      expect(back.code, back.stderr).toBe(1);
      const refused = (JSON.parse(back.stdout) as { notAdopted: { id: string; errors: { message: string }[] }[] })
        .notAdopted;
      expect(refused.map((row) => row.id).sort()).toEqual(['mr-18', 'mr-19', 'mr-4', 'mr-7', 'mr-9']);
      expect(refused.find((row) => row.id === 'mr-18')?.errors[0]?.message).toContain('DisableLogin');
      const again = await sync('a.csv', '--require-memory');
      expect(again.code, again.stderr).toBe(0);
      await expectHeld(a, new Set());
    }));

  it('several --file: a row the last file gives as an earlier one did, which the store holds otherwise, is not left adopted by the earlier file: the next night sends it', () =>
    withTempDir(async (dir) => {
      // The store restored to before both nights (mr-1 "First"); both nights' files give mr-1 "Renamed".
      writeUsers(dir, 'old.csv', rows(3));
      const renamed = readFileSync(join(dir, 'old.csv'), 'utf8').replace('mr-1,First,', 'mr-1,Renamed,');
      writeFileSync(join(dir, 'a.csv'), renamed);
      writeFileSync(join(dir, 'b.csv'), renamed);
      const sync = (file: string, ...more: string[]) =>
        cli(dir, ['user', 'sync', '--file', file, ...local(), ...nightly, '--yes', ...more]);
      expect((await sync('old.csv')).code).toBe(0);
      cpSync(join(dir, 'store'), join(dir, 'backup'), { recursive: true });
      expect((await sync('a.csv')).code).toBe(0);
      expect((await sync('b.csv')).code).toBe(0);
      rmSync(join(dir, 'store'), { recursive: true });
      cpSync(join(dir, 'backup'), join(dir, 'store'), { recursive: true });
      rmSync(join(dir, 'synced'), { recursive: true });
      const adopted = await cli(dir, ['synced', 'adopt', '--file', 'a.csv', '--file', 'b.csv', ...local()]);
      expect(adopted.code, adopted.stderr).toBe(1);
      expect(lineWith(adopted.stderr, 'b.csv:3 [mr-1]: ', 'FirstName 9019')).toBeTruthy();
      const next = await sync('b.csv', '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(sentIds(next.stdout)).toEqual(['mr-1']);
    }));

  it("adopt-schedules records a sittings file's schedules with their candidates: the next --changed-only push sends nothing", () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'sittings.csv'), readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8'));
      const pushed = await cli(dir, ['schedule', 'push', '--file', 'sittings.csv', '--upsert', ...local(), '--json'], {
        EXAMCTL_SYNC_DIR: join(dir, 'lost'),
      });
      expect(pushed.code, pushed.stderr).toBe(0);
      const dry = await cli(dir, [
        'synced',
        'adopt-schedules',
        '--file',
        'sittings.csv',
        '--upsert',
        ...local(),
        '--dry-run',
      ]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('S-MATH1-DEC (new)');
      const adopted = await cli(dir, ['synced', 'adopt-schedules', '--file', 'sittings.csv', '--upsert', ...local()]);
      expect(adopted.code, adopted.stderr).toBe(0);
      expect(lineWith(adopted.stderr, 'adopted ', ' schedules of ', 'sittings.csv')).toMatch(/^adopted \d+ /);
      const night = await cli(dir, [
        'schedule',
        'push',
        '--file',
        'sittings.csv',
        '--upsert',
        '--changed-only',
        '--require-memory',
        ...local(),
        '--json',
      ]);
      expect(night.code, night.stderr).toBe(0);
      expect(
        (JSON.parse(night.stdout) as { items: { action?: string }[] }).items.every(
          (item) => item.action === 'unchanged',
        ),
      ).toBe(true);
    }));

  it('adopt-schedules without --upsert says once that the next --changed-only night sends those schedules again, and it does', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'sittings.csv'), readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8'));
      const push = ['schedule', 'push', '--file', 'sittings.csv', '--upsert', '--changed-only', ...local(), '--json'];
      expect((await cli(dir, push, { EXAMCTL_SYNC_DIR: join(dir, 'lost') })).code).toBe(0);
      const adopted = await cli(dir, ['synced', 'adopt-schedules', '--file', 'sittings.csv', ...local()]);
      expect(adopted.code, adopted.stderr).toBe(0);
      const said = adopted.stderr.split('\n').filter((line) => line.includes('without Upsert'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^note: 2 schedules .*--upsert/);
      const night = await cli(dir, push);
      expect(night.code, night.stderr).toBe(0);
      const notes = (JSON.parse(night.stdout) as { items: { note?: string }[] }).items.map((item) => item.note);
      expect(notes.filter((note) => note?.startsWith('unchanged since') === true)).toEqual([]);
      const again = await cli(dir, ['synced', 'adopt-schedules', '--file', 'sittings.csv', '--upsert', ...local()]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toContain('without Upsert');
    }));

  it('adopt-schedules on a local store adopts only a schedule the store holds as the file gives it: the rest named with their fields (exit 1), the next night sends them', () =>
    withTempDir(async (dir) => {
      // Night 1: the fixture and a third schedule; night 2: S-PHYS2-JAN retitled, moved an hour and
      // its group renamed (4 fields), stu-2002 renamed on S-MATH1-DEC, S-MATH1-JAN as it was.
      const third =
        'S-MATH1-JAN,A-MATH-1,Mathematics 1 - January sitting,2027-01-11T09:00:00Z,2027-01-11T12:00:00Z,H-NORTH-JAN,North campus - January,stu-2001,Amira,Haddad,amira.haddad@students.example.test,,';
      const night1 = `${readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8').trimEnd()}\n${third}\n`;
      writeFileSync(join(dir, 'night1.csv'), night1);
      writeFileSync(
        join(dir, 'night2.csv'),
        night1
          .replaceAll(
            'Physics 2 - January sitting,2027-01-18T13:00:00Z,2027-01-18T17:00:00Z,H-SOUTH-JAN,South campus - January',
            'Physics 2 - January resit,2027-01-18T14:00:00Z,2027-01-18T18:00:00Z,H-SOUTH-JAN,South campus - resit',
          )
          .replace(',stu-2002,Ben,', ',stu-2002,Benjamin,'),
      );
      const push = (file: string, ...more: string[]) =>
        cli(dir, ['schedule', 'push', '--file', file, '--upsert', '--changed-only', ...local(), '--json', ...more]);
      expect((await push('night1.csv')).code).toBe(0);
      cpSync(join(dir, 'store'), join(dir, 'backup'), { recursive: true });
      expect((await push('night2.csv')).code).toBe(0);
      // The store back at night 1's state, the memory lost, night 2 adopted.
      rmSync(join(dir, 'store'), { recursive: true });
      cpSync(join(dir, 'backup'), join(dir, 'store'), { recursive: true });
      rmSync(join(dir, 'synced'), { recursive: true });
      // The lost memory's refusal names the schedules' way back and what a schedule night costs.
      const blind = await push('night2.csv', '--require-memory');
      expect(blind.code).toBe(2);
      expectCoded(blind.stderr, 'E2501', 'schedules.ndjson', 'examctl synced adopt-schedules --file');
      expect(blind.stderr).not.toContain('examctl synced adopt --file');
      expect(blind.stderr).not.toContain('users who left');
      const adopted = await cli(dir, [
        'synced',
        'adopt-schedules',
        '--file',
        'night2.csv',
        '--upsert',
        ...local(),
        '--json',
      ]);
      expect(adopted.code, adopted.stderr).toBe(1);
      const document = JSON.parse(adopted.stdout) as {
        adopted: number;
        notAdopted: { id: string; errors: { field: string; code: number; message: string }[] }[];
      };
      expect(document.adopted).toBe(1);
      expect(document.notAdopted.map((row) => row.id).sort()).toEqual(['S-MATH1-DEC', 'S-PHYS2-JAN']);
      const error = (id: string) => document.notAdopted.find((row) => row.id === id)?.errors[0];
      expect(error('S-MATH1-DEC')).toMatchObject({ field: 'Candidates', code: 9019 });
      expect(error('S-MATH1-DEC')?.message).toContain('(Candidates)');
      // Four fields differ: three named, then a count (docs/sync.md, "When the memory is lost").
      expect(error('S-PHYS2-JAN')).toMatchObject({ field: 'Title', code: 9019 });
      expect(error('S-PHYS2-JAN')?.message).toContain('(Title, StartDateTime, EndDateTime and 1 more)');
      expect(adopted.stderr).toContain(
        'night2.csv:8 [S-PHYS2-JAN]: not adopted: Title 9019 the local store holds other values',
      );
      // The next night sends exactly those two: the store then holds every schedule as night 2 gives it.
      const next = await push('night2.csv', '--require-memory');
      expect(next.code, next.stderr).toBe(0);
      expect(sentIds(next.stdout)).toEqual(['S-MATH1-DEC', 'S-PHYS2-JAN']);
      const schedules = (
        JSON.parse((await cli(dir, ['local', 'export', '--store', 'store'])).stdout) as {
          Schedules: {
            ScheduleExtId: string;
            Title: string;
            StartDateTime: string;
            GroupName: string;
            Candidates: { CandidateExtId: string; FirstName: string }[];
          }[];
        }
      ).Schedules;
      const held = (id: string) => schedules.find((schedule) => schedule.ScheduleExtId === id);
      expect(held('S-PHYS2-JAN')).toMatchObject({
        Title: 'Physics 2 - January resit',
        StartDateTime: '2027-01-18T14:00:00.000Z',
        GroupName: 'South campus - resit',
      });
      expect(held('S-MATH1-DEC')?.Candidates.find((each) => each.CandidateExtId === 'stu-2002')?.FirstName).toBe(
        'Benjamin',
      );
    }));
});

describe('a memory line whose checksum holds but whose fields have the wrong types', () => {
  const target = (dir: string) => ({ kind: 'local', store: join(dir, 'store') }) as const;

  async function handEdited(
    dir: string,
    body: Record<string, unknown>,
  ): Promise<{ code: number; stderr: string; file: string }> {
    writeUsers(dir, 'users.csv', rows(3));
    expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()])).code).toBe(0);
    const file = join(memoryDir(join(dir, 'synced'), target(dir)), 'users.ndjson');
    writeFileSync(file, readFileSync(file, 'utf8') + encodeChecksummedLine(JSON.stringify(body)));
    writeUsers(dir, 'users.csv', rows(2));
    const run = await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), ...nightly]);
    return { code: run.code, stderr: run.stderr, file };
  }

  it.each([
    [{ id: 'mr-2', d: 'x', r: 'r', f: { first: 'A' }, l: 'B' }, 'its names are not text'],
    [{ id: 'mr-2', d: 'x', r: 'r', f: 'A', l: 'B', p: 'two words' }, 'its population is not a name'],
    [{ id: 'mr-2', d: 'x', r: 'r', f: 'A', l: 'B', h: 'H-NORTH' }, 'its links are not a list of hierarchy links'],
    [
      { id: 'mr-2', d: 'x', r: 'r', f: 'A', l: 'B', h: [['H-NORTH', ['boss']]] },
      'its links are not a list of hierarchy links',
    ],
    [
      { id: 'mr-2', d: 'x', r: 'r', f: 'A', l: 'B', k: [['H-NORTH', 'r']] },
      'its links are not a list of hierarchy links',
    ],
    [{ id: 'mr-2', d: 'x', r: 'r', f: 'A', l: 'B', x: 'yes' }, 'its flags are not true'],
  ])('%j is exit 2 naming the file and line, nothing sent', (body, reason) =>
    withTempDir(async (dir) => {
      const run = await handEdited(dir, body);
      expect(run.code).toBe(2);
      const lines = readFileSync(run.file, 'utf8').trimEnd().split('\n').length;
      expectCoded(run.stderr, 'E2507', `${run.file}:${lines}:`, reason);
      expect(run.stderr).toContain('examctl synced adopt --file');
    }),
  );

  it('a population line of the wrong types is refused at open, naming its line', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(2));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()])).code).toBe(0);
      const file = join(memoryDir(join(dir, 'synced'), target(dir)), 'users.ndjson');
      writeFileSync(
        file,
        readFileSync(file, 'utf8') +
          encodeChecksummedLine(JSON.stringify({ t: 'population', p: 'staff', r: 'r', n: 'many' })),
      );
      const shown = await cli(dir, ['synced', 'show']);
      expect(shown.code).toBe(2);
      expectCoded(shown.stderr, 'E2507', `${file}:`, 'population record');
    }));
});

describe('the runs without --population are a population of their own', () => {
  it('--population Staff after nights of staff is a new population, and the note names staff (trial35)', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(3));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'])).code).toBe(
        0,
      );
      const slip = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        ...local(),
        '--population',
        'Staff',
        ...nightly,
      ]);
      expect(lineWith(slip.stderr, 'no record', '--population Staff')).toBeTruthy();
      expect(slip.stderr).toContain(
        "note: the memory has a record of --population staff: a population's name is exact (same letters, same case)",
      );
    }));

  it('a memory holding only --population staff refuses them (exit 2, nothing sent, naming what it holds); one holding only them refuses --population students', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(3));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'])).code).toBe(
        0,
      );
      const unnamed = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        ...local(),
        ...nightly,
        '--require-memory',
      ]);
      expect(unnamed.code).toBe(2);
      expectCoded(unnamed.stderr, 'E2501', 'without --population', 'holds staff');
      expect(JSON.parse(unnamed.stdout)).toMatchObject({
        syncMemory: { found: true, population: null, populationFound: false },
      });
      expect(unnamed.stderr).toContain(
        'examctl synced adopt --file <the last export fully synced>, for each population',
      );

      const other = join(dir, 'other-synced');
      expect(
        (await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local()], { EXAMCTL_SYNC_DIR: other })).code,
      ).toBe(0);
      const students = await cli(
        dir,
        ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'students', ...nightly, '--require-memory'],
        { EXAMCTL_SYNC_DIR: other },
      );
      expect(students.code).toBe(2);
      expectCoded(students.stderr, 'E2501', 'of --population students', 'holds the runs without --population');
      expect(students.stderr).toContain(
        'examctl synced adopt --file <the last export fully synced> --population students',
      );
    }));
});

describe('a memory of format 1 (no population lines)', () => {
  it('its populations come from its entries (no upgrade night); the first run that holds its lock rewrites it in this format (4)', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(4));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'])).code).toBe(
        0,
      );
      const target = { kind: 'local', store: join(dir, 'store') } as const;
      const file = join(memoryDir(join(dir, 'synced'), target), 'users.ndjson');
      const [header, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n');
      const old = JSON.parse(header!) as { b: Record<string, unknown> };
      writeFileSync(
        file,
        [
          encodeChecksummedLine(JSON.stringify({ ...old.b, v: 1 })).trimEnd(),
          ...lines.filter((line) => !line.includes('"t":"population"')),
        ].join('\n') + '\n',
      );
      const night = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        ...local(),
        '--population',
        'staff',
        '--require-memory',
        ...nightly,
      ]);
      expect(night.code, night.stderr).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('"v":4');
      expect(text).toMatch(/"t":"population","p":"staff"/);
      const students = await cli(dir, [
        'user',
        'sync',
        '--file',
        'users.csv',
        ...local(),
        '--population',
        'students',
        '--require-memory',
        ...nightly,
      ]);
      expect(students.code).toBe(2);
    }));
});

describe("runs resume of a run older than the memory's newest run of its population", () => {
  it('is refused (exit 2, naming both runs) even from another runs directory; --force resumes it', () =>
    withTempDir(async (dir) => {
      writeUsers(dir, 'users.csv', rows(40));
      // Night 7 killed on runner 1 (its runs directory stays there)...
      const killed = await examctl(['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'], dir, {
        EXAMCTL_RUNS_DIR: join(dir, 'runner-1'),
        EXAMCTL_SYNC_DIR: join(dir, 'synced'),
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:5:SIGKILL',
      });
      expect(killed.signal).toBe('SIGKILL');
      const older = readdirSync(join(dir, 'runner-1'))[0]!;
      // ...night 8 on runner 2, another runs directory, the same memory.
      const later = await cli(
        dir,
        ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff', '--json'],
        { EXAMCTL_RUNS_DIR: join(dir, 'runner-2') },
      );
      const newer = (JSON.parse(later.stdout) as { run: string }).run;
      const refused = await cli(dir, ['runs', 'resume', older], { EXAMCTL_RUNS_DIR: join(dir, 'runner-1') });
      expect(refused.code).toBe(2);
      expectCoded(
        refused.stderr,
        'E2202',
        `run ${older}`,
        `local store ${join(dir, 'store')}`,
        'user sync',
        '--population staff',
        newer,
        '--force',
        '--over-later-runs',
      );
      const forced = await cli(dir, ['runs', 'resume', older, '--force'], { EXAMCTL_RUNS_DIR: join(dir, 'runner-1') });
      expect(forced.code, forced.stderr).toBe(0);
    }));
});

describe('doctor says what it knows of the memory', () => {
  it('none: the cost and the ways back (not a failure); found: each population; damaged: a failure', () =>
    withTempDir(async (dir) => {
      const doctor = async () =>
        (
          JSON.parse((await cli(dir, ['doctor', ...local(), '--json'])).stdout) as {
            checks: { name: string; status: string; detail: string }[];
          }
        ).checks.find((check) => check.name === 'sync memory');
      expect(await doctor()).toMatchObject({
        status: 'skip',
        detail: expect.stringContaining(
          'if a nightly sync kept one there, it was lost: a night without it sends every record',
        ) as string,
      });
      writeUsers(dir, 'users.csv', rows(2));
      expect((await cli(dir, ['user', 'sync', '--file', 'users.csv', ...local(), '--population', 'staff'])).code).toBe(
        0,
      );
      expect(await doctor()).toMatchObject({
        status: 'ok',
        detail: expect.stringMatching(/users 2 \(staff: newest run \S+\)/) as string,
      });
      const file = join(memoryDir(join(dir, 'synced'), { kind: 'local', store: join(dir, 'store') }), 'users.ndjson');
      writeFileSync(file, `${readFileSync(file, 'utf8')}{"crc":"00000000","b":{}}\n`);
      expect(await doctor()).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('sync memory damaged: checksum mismatch; it is not used') as string,
      });
    }));
});
