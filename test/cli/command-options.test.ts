import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { CommanderError } from 'commander';
import { buildProgram } from '../../src/cli/command-tree.js';
import { COMMAND_BEHAVIOURS, COMMANDS } from '../../src/cli/program.js';
import { commandName, type Behaviours, type CommandDeclaration } from '../../src/cli/command-declaration.js';
import { UsageError } from '../../src/system/errors.js';
import { DRY_RUN_OUT } from '../../src/flags/global-options.js';
import { runCli } from '../../src/cli/run-cli.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { testDeps, withTempDir } from './helpers.js';

/**
 * argv to options, per command (gh's NewCmdX tests): each declared command parses a command line
 * and hands its behaviour the options object checked here. The behaviour is replaced by one that
 * records what it got, so nothing runs. Adding a flag: its declaration, plus a line here.
 */

interface Received {
  path: string;
  options: Record<string, unknown>;
}

/** The program with every command's behaviour replaced by a recorder. */
function recordingProgram(): { parse: (argv: readonly string[]) => Promise<Received> } {
  let received: Received | undefined;
  const recorders: Behaviours = new Map(
    [...COMMAND_BEHAVIOURS.keys()].map((path) => [
      path,
      {
        run: async () => async (options: never) => {
          received = { path, options: options as Record<string, unknown> };
          return 0;
        },
      },
    ]),
  );
  return {
    parse: async (argv) => {
      received = undefined;
      const io = testDeps('/');
      const program = buildProgram(io.deps, () => undefined, COMMANDS, recorders);
      await program.parseAsync([...argv], { from: 'user' });
      if (received === undefined) throw new Error(`no command ran for: ${argv.join(' ')}`);
      return received;
    },
  };
}

/** One command line per declared command, and (part of) the options its behaviour must receive. */
const CASES: ReadonlyArray<readonly [argv: string, expected: Record<string, unknown>]> = [
  [
    'schedule push -f s.csv --schedule-id S-1 --assessment A-1 --start 2026-12-14T09:00:00Z --no-proctoring --keycode --workflow EXTERNAL_ATTEMPTS --upsert --changed-only --require-memory',
    {
      file: 's.csv',
      scheduleId: 'S-1',
      assessment: 'A-1',
      start: '2026-12-14T09:00:00Z',
      proctoring: false,
      keycode: true,
      workflow: 'EXTERNAL_ATTEMPTS',
      upsert: true,
      changedOnly: true,
      requireMemory: true,
    },
  ],
  ['schedule links S-1 -o csv --no-bom', { scheduleExtId: 'S-1', output: 'csv', bom: false }],
  [
    'user sync --file u.csv --sheet 2 --encoding windows-1252 --disable-missing --max-disable 5% --allow-disable-recent --prune-memberships --max-prune 3% --sync-dir d --map Mobile=CellularPhone --map Surname=LastName --map-file m.json --set Role=Candidate --date-format DD.MM.YYYY --timezone Europe/Berlin --really-new-ids',
    {
      file: 'u.csv',
      reallyNewIds: true,
      allowDisableRecent: true,
      sheet: '2',
      encoding: 'windows-1252',
      disableMissing: true,
      maxDisable: '5%',
      pruneMemberships: true,
      maxPrune: '3%',
      syncDir: 'd',
      map: ['Mobile=CellularPhone', 'Surname=LastName'],
      mapFile: 'm.json',
      set: ['Role=Candidate'],
      dateFormat: 'DD.MM.YYYY',
      timezone: 'Europe/Berlin',
    },
  ],
  [
    'collection add --title T --taxonomy TX-1 --taxonomy TX-2 --repository LO-1',
    { title: 'T', taxonomy: ['TX-1', 'TX-2'], repository: ['LO-1'] },
  ],
  [
    'invigilators remove S-1 inv-1 inv-2 --file r.csv --only-failed',
    { scheduleExtId: 'S-1', userExtIds: ['inv-1', 'inv-2'], file: 'r.csv', onlyFailed: true },
  ],
  ['apply tonight.plan.json --max-age 12h', { plan: 'tonight.plan.json', maxAge: 12 * 60 * 60 * 1000 }],
  ['user sync --file u.csv --dry-run --plan-out p.json', { file: 'u.csv', planOut: 'p.json' }],
  [
    'invigilators remove S-1 --file staff.xlsx --hidden-rows skip',
    { scheduleExtId: 'S-1', file: 'staff.xlsx', hiddenRows: 'skip' },
  ],
  [
    'schedule push --file s.xlsx --sheet Rooms --hidden-rows include',
    { file: 's.xlsx', sheet: 'Rooms', hiddenRows: 'include' },
  ],
  ['schedule push --file s.csv --really-new-ids', { file: 's.csv', reallyNewIds: true }],
  ['template users -o xlsx --out u.xlsx', { kind: 'users', output: 'xlsx', out: 'u.xlsx' }],
  ['template sittings --map-example', { kind: 'sittings', mapExample: true }],
  ['schema sittings --out s.json', { kind: 'sittings', out: 's.json' }],
  ['review-session show RS-1 -o csv --delimiter ;', { externalIds: ['RS-1'], output: 'csv', delimiter: ';' }],
  [
    'review-session show RS-1 RS-2 -o xlsx --timezone Europe/London --date-format DD/MM/YYYY --decimal-separator ,',
    {
      externalIds: ['RS-1', 'RS-2'],
      output: 'xlsx',
      timezone: 'Europe/London',
      dateFormat: 'DD/MM/YYYY',
      decimalSeparator: ',',
    },
  ],
  ['review-session show --file ids.csv --sheet Ids -o ndjson', { file: 'ids.csv', sheet: 'Ids', output: 'ndjson' }],
  ['local init --seed w.json --force --sync-dir d', { seed: 'w.json', force: true, syncDir: 'd' }],
  ['local export --out w.json', { out: 'w.json' }],
  [
    'local serve --port 8080 --public-url https://exam.example.test/ --faults 503:10% --faults-seed 42',
    { host: '127.0.0.1', port: 8080, publicUrl: 'https://exam.example.test', faults: '503:10%', faultsSeed: 42 },
  ],
  ['doctor --profile prod', { profile: 'prod' }],
  ['doctor --sync-dir d', { syncDir: 'd' }],
  ['local serve --sync-dir d', { host: '127.0.0.1', port: 0, syncDir: 'd' }],
  [
    'config set-profile prod --base-url https://exam.example.com --default',
    { name: 'prod', baseUrl: 'https://exam.example.com', default: true },
  ],
  [
    'config set-profile prod --map-file m.json --map Mobile=CellularPhone --set Role=Candidate --set Labels=x --date-format DD/MM/YYYY --timezone Europe/London --encoding windows-1252 --delimiter ; --decimal-separator , --strict --unset rate',
    {
      name: 'prod',
      mapFile: 'm.json',
      map: ['Mobile=CellularPhone'],
      set: ['Role=Candidate', 'Labels=x'],
      dateFormat: 'DD/MM/YYYY',
      timezone: 'Europe/London',
      encoding: 'windows-1252',
      delimiter: ';',
      decimalSeparator: ',',
      strict: true,
      unset: ['rate'],
    },
  ],
  ['config list --json', { json: true }],
  ['config remove staging', { name: 'staging' }],
  ['config use prod', { name: 'prod' }],
  ['config show', {}],
  ['runs list', {}],
  ['runs list --since 2026-11-01', { since: { at: Date.parse('2026-11-01T00:00:00Z') } }],
  ['runs list --since 7d', { since: { ago: 7 * 24 * 3600 * 1000 } }],
  ['runs show last', { id: 'last' }],
  [
    'runs resume 20261122T110502.481Z-3f9a --pin 4821 --target-from-run',
    { id: '20261122T110502.481Z-3f9a', pin: '4821', targetFromRun: true },
  ],
  ['runs resume last --force', { id: 'last', force: true }],
  ['runs prune --all --older-than 7d', { all: true, olderThan: 7 * 24 * 3600 * 1000 }],
  ['synced show --sync-dir d', { syncDir: 'd' }],
  ['synced forget --sync-dir d', { syncDir: 'd' }],
  [
    'synced export --out m.json --sync-dir https://state.example.test/s',
    { out: 'm.json', syncDir: 'https://state.example.test/s' },
  ],
  ['synced import m.json --force', { file: 'm.json', force: true }],
  [
    'synced adopt -f staff.csv --population staff --map Staff=ExternalId --encoding windows-1252',
    { file: ['staff.csv'], population: 'staff', map: ['Staff=ExternalId'], encoding: 'windows-1252' },
  ],
  [
    'synced adopt-schedules -f sittings.csv --upsert --schedule-id S-1 --pin-file pin.txt',
    { file: 'sittings.csv', upsert: true, scheduleId: 'S-1', pinFile: 'pin.txt' },
  ],
  ['synced adopt-collections -f collections.json --map Name=Title', { file: 'collections.json', map: ['Name=Title'] }],
  [
    'synced unlock 6f1c --sync-dir https://state.example.test/s',
    { lockId: '6f1c', syncDir: 'https://state.example.test/s' },
  ],
  ['login --with-token --no-verify', { withToken: true, verify: false }],
  ['completion fish', { shell: 'fish' }],
  ['explain E3020', { code: 'E3020' }],
];

const program = recordingProgram();

describe('argv to options, per command', () => {
  it('every runnable declaration has a behaviour (program.ts), and every behaviour a declaration', () => {
    const runnable = COMMANDS.filter((declaration) => declaration.options !== undefined).map(commandName);
    expect([...COMMAND_BEHAVIOURS.keys()].sort()).toEqual(runnable.sort());
  });

  it('every declared command has a case here', () => {
    const declared = COMMANDS.filter((declaration) => declaration.options !== undefined).map((declaration) =>
      declaration.path.join(' '),
    );
    const missing = declared.filter((path) => !CASES.some(([argv]) => `${argv} `.startsWith(`${path} `)));
    expect(missing).toEqual([]);
  });

  it('every command and group declared in src/cli/commands/*.options.ts is listed in COMMANDS (src/cli/program.ts)', async () => {
    const dir = new URL('../../src/cli/commands/', import.meta.url);
    const unlisted: string[] = [];
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.options.ts'))) {
      const exported = (await import(new URL(file, dir).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exported)) {
        const declaration = value as Partial<CommandDeclaration> | null;
        if (
          typeof declaration !== 'object' ||
          declaration === null ||
          !Array.isArray(declaration.path) ||
          !Array.isArray(declaration.examples)
        )
          continue;
        if (!COMMANDS.includes(declaration as CommandDeclaration))
          unlisted.push(`${file}: ${name} (${declaration.path.join(' ')})`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it.each(CASES)('%s', async (argv, expected) => {
    const received = await program.parse(argv.split(' '));
    expect(`${argv} `.startsWith(`${received.path} `)).toBe(true);
    expect(received.options).toMatchObject(expected);
  });

  it('global flags reach the command, before or after it', async () => {
    const received = await program.parse([
      '--dry-run',
      'user',
      'sync',
      '--file',
      'u.csv',
      '--report',
      'r.csv',
      '--json',
    ]);
    expect(received.options).toMatchObject({ dryRun: true, file: 'u.csv', report: 'r.csv', json: true });
  });

  it("a flag another command declares is refused: each command takes only its own table's flags", async () => {
    const error = await program.parse(['runs', 'list', '--disable-missing']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).code).toBe('commander.unknownOption');
  });
  it.each(CASES)(
    '--report on %s: honoured by a command that writes a run report, else refused before it runs',
    async (argv) => {
      const path = COMMANDS.find(
        (declaration) => declaration.options !== undefined && `${argv} `.startsWith(`${declaration.path.join(' ')} `),
      )!;
      const outcome = await program.parse([...argv.split(' '), '--report', 'x.csv']).catch((caught: unknown) => caught);
      if (path.takes?.includes('--report')) {
        expect((outcome as Received).options.report).toBe('x.csv');
        return;
      }
      expect(outcome).toBeInstanceOf(UsageError);
      expect((outcome as UsageError).message).toMatch(
        /^--report is for commands that send or check records \(schedule push, user sync, .*runs show.*\); /,
      );
    },
  );

  it('--report on a read (review-session show, template): exit 2, says what to use instead, writes nothing', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      const code = await runCli(
        [
          '--target',
          'local',
          '--store',
          join(dir, 'store'),
          'review-session',
          'show',
          'RS-MATH1-OCT',
          '--report',
          'x.csv',
        ],
        io.deps,
      );
      expect(code).toBe(2);
      expectCoded(io.stderr.text, 'E2007', '--report', 'apply, runs show', '--out <file> for review-session show');
      expect(io.stdout.text).toBe('');
      expect(existsSync(join(dir, 'x.csv'))).toBe(false);
      expect(existsSync(join(dir, 'store'))).toBe(false);
      const template = testDeps(dir);
      expect(await runCli(['template', 'users', '--report', 't.csv'], template.deps)).toBe(2);
      expectCoded(template.stderr.text, 'E2007', '--report', '--out <file> for template');
      expect(template.stdout.text).toBe('');
      expect(existsSync(join(dir, 't.csv'))).toBe(false);
    });
  });
  it('--dry-run is refused (exit 2, before it runs) by exactly the commands that would change things all the same', async () => {
    const refused: string[] = [];
    for (const [argv] of CASES) {
      const declaration = COMMANDS.find(
        (candidate) => candidate.options !== undefined && `${argv} `.startsWith(`${candidate.path.join(' ')} `),
      )!;
      const outcome = await program.parse([...argv.split(' '), '--dry-run']).catch((caught: unknown) => caught);
      if (outcome instanceof UsageError) {
        const own = `--dry-run: ${declaration.path.join(' ')} has no dry run and would change things all the same; leave --dry-run out`;
        expect(outcome.message).toBe(declaration.path.join(' ') === 'synced export' ? DRY_RUN_OUT : own);
        refused.push(declaration.path.join(' '));
      } else expect((outcome as Received).options.dryRun).toBe(true);
    }
    // Exactly those whose declaration does not take it (docs/cli.md's generated table, "Global flags").
    const refusing = COMMANDS.filter(
      (declaration) => declaration.options !== undefined && !declaration.takes.includes('--dry-run'),
    ).map(commandName);
    expect([...new Set(refused)].sort()).toEqual(refusing.sort());
    expect(refusing).toEqual(expect.arrayContaining(['runs prune', 'local serve', 'config set-profile', 'login']));
  });
  it('a flag that takes one value, given twice, is exit 2 naming no value (one may hold a secret), nothing read or written; a repeatable flag collects', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      // Two files: the last one winning would sync only b.csv (and take a.csv's users for leavers).
      const code = await runCli(
        [
          '--target',
          'local',
          '--store',
          join(dir, 'store'),
          'user',
          'sync',
          '--file',
          'a.csv',
          '--file',
          'b.csv',
          '--report',
          'x.json',
        ],
        io.deps,
      );
      expect(code).toBe(2);
      expectCoded(io.stderr.text, 'E2000', '--file', 'twice');
      expect(io.stderr.text).not.toMatch(/a\.csv|b\.csv/);
      const reports = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs') });
      expect(
        await runCli(
          ['user', 'sync', '--file', 'a.csv', '--report', 'x.json', '--dry-run', '--report', 'y.csv'],
          reports.deps,
        ),
      ).toBe(2);
      expectCoded(reports.stderr.text, 'E2000', '--report', 'twice');
      // A parsed and a choice flag keep their own checks under the guard.
      await expect(program.parse(['user', 'sync', '--concurrency', 'x'])).rejects.toThrow(
        '--concurrency must be a whole number of at least 1',
      );
      await expect(program.parse(['--target', 'nowhere', 'runs', 'list'])).rejects.toThrow(
        /Allowed choices are local, remote/,
      );
      await expect(program.parse(['--concurrency', '4', 'runs', 'list', '--concurrency', '8'])).rejects.toThrow(
        '--concurrency given twice: it takes one value',
      );
      // An address holding a password (a job token pasted into it) is never quoted (trial43 F03).
      const twice = testDeps(dir);
      expect(
        await runCli(
          [
            '--json',
            'synced',
            'show',
            '--sync-dir',
            'https://ci:S3cret@git.example.test/s',
            '--sync-dir',
            'https://ci:S3cret@git.example.test/s',
          ],
          twice.deps,
        ),
      ).toBe(2);
      expect(`${twice.stdout.text}${twice.stderr.text}`).not.toContain('S3cret');
      const mistyped = testDeps(dir, {}, { EXAMCTL_SYNC_DIR: 'https://ci:S3cret@git.example.test:99999/state' });
      expect(await runCli(['synced', 'show'], mistyped.deps)).toBe(2);
      expect(mistyped.stderr.text).toContain('not a valid URL');
      expect(mistyped.stderr.text).not.toContain('S3cret');
      // A password holding `/` or `#` makes the address no URL: still not quoted (trial44 F02); nor one commander quotes (F03).
      for (const [args, env] of [
        [['synced', 'show'], { EXAMCTL_SYNC_DIR: 'https://svc:Kq3/S3cret#x@state.example/m' }],
        [['synced', 'show', '--sync-dir', 'htps://ci:S3cret@git.example.test/s'], {}],
        [['--json', 'local', 'serve', '--public-url', 'https://admin:S3cret@host.example'], {}],
      ] as const) {
        const io = testDeps(dir, {}, env);
        expect(await runCli([...args], io.deps)).toBe(2);
        expect(`${io.stdout.text}${io.stderr.text}`).not.toContain('S3cret');
      }
      for (const name of ['x.json', 'y.csv', 'store', 'runs']) expect(existsSync(join(dir, name))).toBe(false);
    });
    expect(
      (
        await program.parse([
          'user',
          'sync',
          '--map',
          'A=ExternalId',
          '--map',
          'B=LastName',
          '--set',
          'Role=Candidate',
          '--set',
          'Phone=1',
        ])
      ).options,
    ).toMatchObject({ map: ['A=ExternalId', 'B=LastName'], set: ['Role=Candidate', 'Phone=1'] });
  });
});
