import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { ROOT, type Finished } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { startStateServer, type StateServer } from '../support/state-server.js';
import {
  documentOf,
  initServedStore,
  nightly,
  platformState,
  POPULATIONS,
  serve,
  snapshot,
  writeNight,
  type Population,
} from './lost-memory-nights.js';

/**
 * Issue 48: the nightly sync survives a lost memory (docs/sync.md, "When the memory is lost";
 * docs/ci.md, "A nightly sync"). Two populations over six nights against `local serve`, each night
 * two steps, the real CLI spawned. Before night 6 the memory is lost: night 6 is refused for each
 * population, with no memory and with only the other population's; then each way back (adopt the
 * night-5 exports, import night 5's export, a state service, the GitHub recipe's artifact) ends
 * night 6 with exactly the platform state of the control, whose memory was never lost.
 */

const TIMEOUT = 900_000;
let dir: string;
let store: string;
let port: number;
let url: string;
/** The platform after night 6 of the control run. */
let control: Record<string, string>;

const remote = (): string[] => ['--target', 'remote', '--base-url', url];
const baseEnv = (name: string): Record<string, string> => ({
  EXAMCTL_TOKEN: 'dev-token',
  EXAMCTL_SYNC_DIR: join(dir, 'synced'),
  EXAMCTL_RUNS_DIR: join(dir, `runs-${name}`),
});

async function night(n: number, population: Population, env: Record<string, string>, cwd = dir): Promise<Finished> {
  const files = writeNight(cwd, n);
  return examctl(['user', 'sync', '--file', files[population], ...remote(), ...nightly(population, n)], cwd, env);
}

async function expectNight(n: number, env: Record<string, string>, cwd = dir): Promise<void> {
  for (const population of POPULATIONS) {
    const run = await night(n, population, env, cwd);
    expect(run.code, `night ${n} ${population}: ${run.stderr}`).toBe(0);
  }
}

/** Night 6 refused: exit 2, nothing sent, the refusal saying what a first night costs and the ways back in order. */
async function expectRefused(
  population: Population,
  env: Record<string, string>,
  holds: string | undefined,
): Promise<void> {
  const run = await night(6, population, env);
  expect(run.code, run.stderr).toBe(2);
  const document = documentOf(run);
  expect(document.syncMemory).toMatchObject({ found: holds !== undefined, population, populationFound: false });
  expect(document.items.every((item) => item.action === undefined)).toBe(true);
  const said = run.stderr.replace(/\s+/g, ' ');
  if (holds === undefined) expectCoded(said, 'E2501', '--require-memory', url);
  else expectCoded(said, 'E2501', '--require-memory', `--population ${population}`, holds);
  const at = [
    'examctl synced import',
    `examctl synced adopt --file <the last export fully synced> --population ${population}`,
    'only then, as a knowing choice, a first night',
  ].map((words) => said.indexOf(words));
  expect(at[0]).toBeGreaterThan(0);
  expect(at).toEqual([...at].sort((a, b) => a - b));
}

/** The served store back as it was after night 5, served again at the same address (so the same target), its memory lost. */
async function afterNightFive(server: { current?: LocalServer }): Promise<void> {
  await server.current?.close();
  rmSync(store, { recursive: true, force: true });
  cpSync(join(dir, 'snapshot', 'served'), store, { recursive: true });
  rmSync(join(dir, 'synced'), { recursive: true, force: true });
  server.current = await serve(store, port);
}

const served: { current?: LocalServer } = {};

/** The sync directory's memory files and their text. */
function memoryFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const synced = join(dir, 'synced');
  if (!existsSync(synced)) return files;
  for (const target of readdirSync(synced))
    for (const name of readdirSync(join(synced, target)))
      if (name.endsWith('.ndjson')) files[`${target}/${name}`] = readFileSync(join(synced, target, name), 'utf8');
  return files;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-lost-memory-'));
  store = join(dir, 'served');
  await initServedStore(dir, store);
  served.current = await serve(store);
  port = served.current.port;
  url = `http://127.0.0.1:${port}`;
  mkdirSync(join(dir, 'exports'));
  for (let n = 1; n <= 5; n++) {
    await expectNight(n, baseEnv('control'));
    const exported = await examctl(
      ['synced', 'export', ...remote(), '--out', join('exports', `night-${n}.json`)],
      dir,
      baseEnv('control'),
    );
    expect(exported.code, exported.stderr).toBe(0);
  }
  await served.current.close();
  snapshot(store, join(dir, 'snapshot', 'served'));
  served.current = await serve(store, port);
  await expectNight(6, baseEnv('control'));
  await served.current.close();
  served.current = undefined;
  control = await platformState(dir, store);
}, TIMEOUT);

afterAll(async () => {
  await served.current?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the control: six nights whose memory is never lost', () => {
  it('disabled every leaver, pruned every mover, moved users between the exports', () => {
    for (const id of ['pu-5', 'st-2', 'pu-8', 'pu-9', 'st-5', 'pu-24']) expect(control[id], id).toMatch(/\|disabled\|/);
    expect(control['pu-10']).toBe('Student 10|enabled|H-D');
    expect(control['st-6']).toBe('Staff 6|enabled|H-A:IsCoordinator');
    expect(control['st-1']).toBe('Staff 1|enabled|H-A');
    expect(control['pu-11']).toBe('Student 11|enabled|H-A:HasViewReportsPermissions');
    expect(control['pu-7']).toBe('Student 7|enabled|H-A');
    expect(control['pu-23']).toBe('Joiner pu-23|enabled|H-C');
  });
});

describe('the memory lost before night 6', () => {
  it(
    'a knowing first night costs what the refusal says: leavers stay enabled, movers keep their old links',
    async () => {
      await afterNightFive(served);
      const env = baseEnv('first-night');
      for (const population of POPULATIONS) {
        const files = writeNight(dir, 6);
        const run = await examctl(
          ['user', 'sync', '--file', files[population], ...remote(), ...nightly(population, 1)],
          dir,
          env,
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(
          /^(no sync memory for remote .*|the sync memory of remote .* has no record of --population students): no record was left out as unchanged, no leaver was disabled and no link or flag was pruned, and no later night does it/m,
        );
      }
      await served.current?.close();
      served.current = undefined;
      const state = await platformState(dir, store);
      expect(state['pu-9']).toBe('Student 9|enabled|H-B');
      expect(state['st-5']).toBe('Staff 5|enabled|H-A');
      expect(state['pu-10']).toBe('Student 10|enabled|H-C,H-D');
      expect(state).not.toEqual(control);
    },
    TIMEOUT,
  );

  it(
    "refused for each population, with no memory and with only the other one's; adopting each night-5 export rebuilds it, and night 6 ends as the control",
    async () => {
      await afterNightFive(served);
      const env = baseEnv('adopt');
      await expectRefused('staff', env, undefined);
      await expectRefused('students', env, undefined);
      // A dry run lists what it would record and writes nothing.
      const before = memoryFiles();
      const dry = await examctl(
        [
          'synced',
          'adopt',
          '--file',
          join(dir, 'students-5.csv'),
          '--population',
          'students',
          ...remote(),
          '--dry-run',
        ],
        dir,
        env,
      );
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('pu-3 (new; --population students; links H-C)');
      expect(lineWith(dry.stderr, 'would adopt', '20 users', join(dir, 'students-5.csv'))).toBeTruthy();
      expect(memoryFiles()).toEqual(before);
      const students = await examctl(
        ['synced', 'adopt', '--file', join(dir, 'students-5.csv'), '--population', 'students', ...remote()],
        dir,
        env,
      );
      expect(students.code, students.stderr).toBe(0);
      expect(students.stderr).toMatch(
        /adopted 20 users of .*students-5\.csv into the sync memory of remote .* as --population students \(run \S+: 20 new, 0 replaced\)/,
      );
      await expectRefused('staff', env, 'students');
      const staff = await examctl(
        ['synced', 'adopt', '--file', join(dir, 'staff-5.csv'), '--population', 'staff', ...remote()],
        dir,
        env,
      );
      expect(staff.code, staff.stderr).toBe(0);
      const shown = await examctl(['synced', 'show'], dir, env);
      expect(lineWith(shown.stdout, '--population staff: ', '9 users')).toBeTruthy();
      expect(lineWith(shown.stdout, '--population students: ', '20 users')).toBeTruthy();
      await expectNight(6, env);
      await served.current?.close();
      served.current = undefined;
      expect(await platformState(dir, store)).toEqual(control);
    },
    TIMEOUT,
  );

  it(
    "importing night 5's export brings it back (refused over a newer memory without --force), and night 6 ends as the control",
    async () => {
      await afterNightFive(served);
      const env = baseEnv('import');
      const staff = await examctl(
        ['synced', 'adopt', '--file', join(dir, 'staff-5.csv'), '--population', 'staff', ...remote()],
        dir,
        env,
      );
      expect(staff.code, staff.stderr).toBe(0);
      await expectRefused('students', env, 'staff');
      const older = await examctl(['synced', 'import', join('exports', 'night-5.json'), ...remote()], dir, env);
      expect(older.code).toBe(2);
      expect(older.stderr).toMatch(
        /^examctl: E2506: \S*night-5\.json: .*\d{8}T\S+Z-[0-9a-f]+.*\d{8}T\S+Z-[0-9a-f]+.*--force/m,
      );
      const imported = await examctl(
        ['synced', 'import', join('exports', 'night-5.json'), ...remote(), '--force'],
        dir,
        env,
      );
      expect(imported.code, imported.stderr).toBe(0);
      expect(lineWith(imported.stderr, 'imported ', `remote ${url}`)).toBeTruthy();
      await expectNight(6, env);
      await served.current?.close();
      served.current = undefined;
      expect(await platformState(dir, store)).toEqual(control);
    },
    TIMEOUT,
  );
});

describe("a state service keeps the memory (Terraform's HTTP backend protocol)", () => {
  let state: StateServer;
  const password = 'sync-Passw0rd-4711-secret';

  afterAll(async () => {
    await state?.close();
  });

  it(
    'the same nights through it, with a lock another run holds: refused after the wait, then every night as the control',
    async () => {
      state = await startStateServer({ credentials: { username: 'ci', password } });
      const address = state.address('examctl');
      // The nights from the start on the service: the platform goes back to before night 1.
      await served.current?.close();
      rmSync(store, { recursive: true, force: true });
      await initServedStore(dir, store);
      served.current = await serve(store, port);
      const env = {
        ...baseEnv('service'),
        EXAMCTL_SYNC_DIR: address,
        EXAMCTL_SYNC_USERNAME: 'ci',
        EXAMCTL_SYNC_PASSWORD: password,
        EXAMCTL_LOCK_TIMEOUT_MS: '0',
      };
      const outputs: string[] = [];
      const run = async (n: number, population: Population): Promise<Finished> => {
        const done = await night(n, population, env);
        outputs.push(done.stdout, done.stderr);
        return done;
      };
      for (let n = 1; n <= 5; n++) {
        if (n === 3) {
          state.locks.set('/state/examctl', {
            ID: 'lock-of-another-run',
            Operation: 'examctl user sync --population students',
            Who: 'runner@ci-other',
            Created: '2026-11-21T02:15:00Z',
            Info: '',
            Version: '',
            Path: '',
          });
          const locked = await run(3, 'staff');
          expect(locked.code, locked.stderr).toBe(3);
          expectCoded(
            locked.stderr,
            'E3021',
            address,
            'runner@ci-other',
            'user sync --population students',
            'lock-of-another-run',
            '2026-11-21T02:15:00Z',
          );
          expect(locked.stderr).toContain(`examctl synced unlock lock-of-another-run --sync-dir ${address}`);
          expect(documentOf(locked).items.every((item) => item.action === undefined)).toBe(true);
          state.locks.delete('/state/examctl');
        }
        for (const population of POPULATIONS) expect((await run(n, population)).code).toBe(0);
      }
      // Every store went under the run's own lock, with Terraform's headers (its intents written ahead and its delta, beside it, to states no one locks); every lock was released.
      const posts = state.requests.filter((request) => request.method === 'POST');
      expect(posts.filter((post) => !post.path.includes('-intents-')).length).toBeGreaterThanOrEqual(10);
      for (const post of posts) {
        if (!post.path.includes('-intents-') && !post.path.includes('-delta-'))
          expect(post.query.ID).toMatch(/^[0-9a-f-]{36}$/);
        expect(post.contentMd5).toBeDefined();
      }
      expect(state.locks.size).toBe(0);
      const shown = await examctl(['synced', 'show', '--json'], dir, env);
      expect(
        (
          JSON.parse(shown.stdout) as { memories: { populationsSynced: { population: string }[] }[] }
        ).memories[0]?.populationsSynced.map((p) => p.population),
      ).toEqual(['staff', 'students']);
      const exported = await examctl(['synced', 'export', ...remote(), '--out', 'service-night-5.json'], dir, env);
      expect(exported.code, exported.stderr).toBe(0);

      // Lost (deleted on the service): refused for each population, then rebuilt through the service.
      state.states.delete('/state/examctl');
      await expectRefused('staff', env, undefined);
      await expectRefused('students', env, undefined);
      expect(
        (
          await examctl(
            ['synced', 'adopt', '--file', join(dir, 'staff-5.csv'), '--population', 'staff', ...remote()],
            dir,
            env,
          )
        ).code,
      ).toBe(0);
      await expectRefused('students', env, 'staff');
      expect(
        (
          await examctl(
            ['synced', 'adopt', '--file', join(dir, 'students-5.csv'), '--population', 'students', ...remote()],
            dir,
            env,
          )
        ).code,
      ).toBe(0);
      await expectNight(6, env);
      await served.current?.close();
      served.current = undefined;
      expect(await platformState(dir, store)).toEqual(control);
      // The password went only where it belongs: the Authorization header, never argv or output.
      expect(
        state.requests.every(
          (request) => request.authorization === `Basic ${Buffer.from(`ci:${password}`).toString('base64')}`,
        ),
      ).toBe(true);
      for (const text of outputs) expect(text).not.toContain(password);
      expect(readFileSync(join(dir, 'service-night-5.json'), 'utf8')).not.toContain(password);
      // Nor in any run journal, report or file the runs left (the runs directory and the sync directory beside it).
      const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
      expect(files.length).toBeGreaterThan(10);
      for (const entry of files)
        expect(
          readFileSync(join(entry.parentPath, entry.name), 'utf8'),
          join(entry.parentPath, entry.name),
        ).not.toContain(password);
    },
    TIMEOUT,
  );
});

/** The GitHub workflow of docs/ci.md ("GitHub Actions: the memory as an artifact of every night"): its examctl commands, as written there. */
function githubRecipe(): {
  yaml: string;
  importCommand: string;
  replays: string[];
  syncs: string[];
  exportCommand: string;
} {
  const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### GitHub Actions: the memory as an artifact of every night'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = [...yaml.matchAll(/(?:run: |^\s+|&& )(examctl [^\n]+)/gm)].map((match) =>
    match[1]!.replace(/ \|\| \[ \$\? -eq 1 \]$/, ''),
  );
  const syncs = commands.filter((command) => command.startsWith('examctl user sync'));
  return {
    yaml,
    importCommand: commands.find((command) => command.startsWith('examctl synced import')) ?? '',
    replays: syncs.filter((command) => command.includes('lost-$run')),
    syncs: syncs.filter((command) => !command.includes('lost-$run')),
    exportCommand: commands.find((command) => command.startsWith('examctl synced export')) ?? '',
  };
}

/** A recipe command as the runner runs it: on the first night (first_night) without --require-memory; a replay's `$run` the lost night's. */
function argvOf(command: string, firstNight: boolean, run?: number): string[] {
  return command
    .replace(/\$\{\{ !inputs\.first_night && '([^']*)' \|\| '' \}\}/, firstNight ? '' : '$1')
    .replaceAll('$run', String(run))
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(1);
}

/** A command's flags without its input and report files: a replay must send as the night it replays did. */
function flagsOf(argv: string[]): string[] {
  return argv.filter(
    (word, i) => !['--file', '--report'].includes(word) && !['--file', '--report'].includes(argv[i - 1]!),
  );
}

describe('the GitHub recipe, modelled as its steps', () => {
  it(
    "six nights on fresh runners, night 3's runner lost after it sent: night 4 imports night 2's memory, replays night 3 from its kept input, and ends as the control",
    async () => {
      const recipe = githubRecipe();
      expect(recipe.yaml).toContain(
        "if: ${{ always() && steps.memory.outcome != 'failure' && steps.memory.outcome != 'cancelled' }}",
      );
      expect(recipe.yaml).toContain('if-no-files-found: error, overwrite: true }');
      expect(recipe.yaml).not.toContain('actions/cache');
      expect(recipe.importCommand).toBe('examctl synced import kept/sync-memory.json');
      expect(recipe.exportCommand).toBe('examctl synced export --out kept-tonight/sync-memory.json');
      expect(recipe.syncs.map((command) => argvOf(command, false).slice(0, 5))).toEqual([
        ['user', 'sync', '--file', 'export/staff.csv', '--population'],
        ['user', 'sync', '--file', 'export/students.csv', '--population'],
      ]);
      // A replay is the night's own step on the lost night's input, with every flag a later night gives.
      expect(recipe.replays.map((command) => flagsOf(argvOf(command, false, 3)))).toEqual(
        recipe.syncs.map((command) => flagsOf(argvOf(command, false))),
      );
      expect(recipe.replays.map((command) => argvOf(command, false, 3)[3])).toEqual([
        'lost-3/staff.csv',
        'lost-3/students.csv',
      ]);
      // A platform before night 1, served at the same address.
      await served.current?.close();
      rmSync(store, { recursive: true, force: true });
      await initServedStore(dir, store);
      served.current = await serve(store, port);
      const LOST = 3;
      const inputs: { night: number; dir: string }[] = [];
      const memories: { night: number; dir: string }[] = [];
      const replayed: number[] = [];
      for (let n = 1; n <= 6; n++) {
        const workspace = join(dir, 'github', `night-${n}`);
        mkdirSync(join(workspace, 'export'), { recursive: true });
        const files = writeNight(workspace, n);
        for (const population of POPULATIONS) cpSync(files[population], join(workspace, 'export', `${population}.csv`));
        const env = {
          EXAMCTL_TOKEN: 'dev-token',
          EXAMCTL_BASE_URL: url,
          EXAMCTL_SYNC_DIR: join(workspace, '.examctl-synced'),
          EXAMCTL_RUNS_DIR: join(workspace, 'runs'),
          CI: 'true',
        };
        const step = async (argv: string[]): Promise<Finished> => examctl(argv, workspace, env);
        if (n > 1) {
          // The memory step: the newest memory artifact imported, then every night since that kept its input and no memory.
          const kept = memories.at(-1)!;
          cpSync(kept.dir, join(workspace, 'kept'), { recursive: true });
          if (n === LOST + 1)
            expect(readFileSync(join(workspace, 'kept', 'sync-memory.json'), 'utf8')).not.toContain('pu-24');
          const imported = await step(argvOf(recipe.importCommand, false));
          expect(imported.code, imported.stderr).toBe(0);
          for (const lost of inputs.filter((input) => input.night > kept.night && input.night !== n)) {
            cpSync(lost.dir, join(workspace, `lost-${lost.night}`), { recursive: true });
            for (const replay of recipe.replays) {
              const run = await step(argvOf(replay, false, lost.night));
              expect(run.code, `night ${n}, replaying night ${lost.night}: ${run.stderr}`).toBe(0);
            }
            replayed.push(lost.night);
          }
        }
        // Tonight's input artifact, before anything is sent.
        const input = join(dir, 'github', 'inputs', `night-${n}`);
        cpSync(join(workspace, 'export'), input, { recursive: true });
        inputs.push({ night: n, dir: input });
        for (const sync of recipe.syncs) {
          let run = await step(argvOf(sync, n === 1));
          // Night 4's students leave out pu-24, night 3's joiner alone, who really left: refused as stale input, then run as the refusal says.
          if (n === 4 && run.code === 2 && run.stderr.includes('pu-24; created by run'))
            run = await step([...argvOf(sync, false), '--allow-disable-recent']);
          expect(run.code, `night ${n}: ${run.stderr}`).toBe(0);
        }
        // Night 3's runner is lost once it has sent everything: no export, no memory artifact.
        if (n === LOST) continue;
        // mkdir -p kept-tonight && examctl synced export ...
        mkdirSync(join(workspace, 'kept-tonight'));
        const exported = await step(argvOf(recipe.exportCommand, false));
        expect(exported.code, exported.stderr).toBe(0);
        const artifact = join(dir, 'github', 'memories', `night-${n}`);
        cpSync(join(workspace, 'kept-tonight'), artifact, { recursive: true });
        memories.push({ night: n, dir: artifact });
      }
      await served.current?.close();
      served.current = undefined;
      // Without the replay pu-24 (night 3's joiner alone) stays enabled: no memory ever knew it.
      expect(await platformState(dir, store)).toEqual(control);
      expect(replayed).toEqual([LOST]);
    },
    TIMEOUT,
  );
});
