import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from './helpers.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { lineWith } from '../support/facts.js';

const USERS = resolve(__dirname, '../../fixtures/users.csv');

interface Item {
  id: string;
  action?: string;
  changes?: { field: string; known: boolean; before?: unknown; after?: unknown }[];
  removed?: string[];
}

/** A night on the local target: the fixture's users synced once with --disable-missing (the memory). */
async function firstNight(dir: string) {
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
  const io = (overrides: Partial<CommandDeps> = {}) => testDeps(dir, overrides, env);
  const raw = async (args: string[], overrides: Partial<CommandDeps> = {}) => {
    const each = io(overrides);
    const code = await runCli(args, each.deps);
    return { code, stderr: each.stderr.text, stdout: each.stdout.text };
  };
  const cli = (args: string[], overrides: Partial<CommandDeps> = {}) =>
    raw(['--store', join(dir, 'store'), ...args], overrides);
  const text = await readFile(USERS, 'utf8');
  await writeFile(join(dir, 'users.csv'), text);
  expect((await cli(['user', 'sync', '--file', 'users.csv', '--disable-missing'])).code).toBe(0);
  const lines = text.trimEnd().split('\n');
  return { cli, raw, lines };
}

const items = async (path: string): Promise<Item[]> => JSON.parse(await readFile(path, 'utf8')).items as Item[];
const byAction = (list: Item[], action: string) => list.filter((item) => item.action === action).map((item) => item.id);

describe('plan then apply (docs/plan.md)', () => {
  it('the export changed between review and apply: apply sends the plan, not the file', () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      // Tonight's export: two surnames changed, one leaver.
      const tonight = [...lines];
      tonight[1] = tonight[1]!.replace('Haddad', 'Haddad-Smith');
      tonight[2] = tonight[2]!.replace('Okafor', 'Okafor-Lee');
      tonight.splice(5, 1);
      await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
      const planned = await cli([
        'user',
        'sync',
        '--file',
        'export.csv',
        '--disable-missing',
        '--dry-run',
        '--plan-out',
        'plan.json',
      ]);
      expect(planned.code).toBe(0);
      expect(planned.stderr).toContain('plan.json');
      expect((await stat(join(dir, 'plan.json'))).mode & 0o777).toBe(0o600);
      const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
      expect(plan.counts).toEqual({ update: 2, unchanged: 17, disable: 1 });
      // The plan holds the input's digest; its copy, 0600, is kept under the runs directory.
      expect(Object.keys(plan.inputs[0])).toEqual(['option', 'path', 'sha256', 'bytes']);
      const kept = join(dir, 'runs', 'plans', plan.id, 'file-export.csv');
      expect((await stat(kept)).mode & 0o777).toBe(0o600);
      expect(
        createHash('sha256')
          .update(await readFile(kept))
          .digest('hex'),
      ).toBe(plan.inputs[0].sha256);
      const haddad = (plan.items as Item[]).find((item) => item.id === 'stu-2001')!;
      // The store's record is whole: its labels are known, the same, so not listed.
      expect(haddad.changes).toEqual([{ field: 'LastName', known: true, before: 'Haddad', after: 'Haddad-Smith' }]);
      // A leaver says "disable login" and nothing else.
      const leaver = (plan.items as Item[]).find((item) => item.action === 'disable')!;
      expect(leaver.changes).toEqual([{ field: 'DisableLogin', known: true, before: false, after: true }]);
      // Between review and apply the export changes: 300 surnames, 500 rows cut (here: one more of each).
      const later = [...tonight];
      later[3] = later[3]!.replace('Martin', 'Martinez');
      later.splice(8, 3);
      await writeFile(join(dir, 'export.csv'), `${later.join('\n')}\n`);
      // Applied from another directory: the plan's paths are where it was made, apply's own --report where apply ran.
      const elsewhere = join(dir, 'elsewhere');
      await mkdir(elsewhere);
      const applied = await cli(['apply', join(dir, 'plan.json'), '--report', 'applied.json'], { cwd: elsewhere });
      expect(applied.code, applied.stderr).toBe(0);
      // Named as typed, as every other run names its report.
      expect(applied.stderr).toMatch(/^report written to applied\.json$/m);
      const report = JSON.parse(await readFile(join(elsewhere, 'applied.json'), 'utf8'));
      const reported = report.items as Item[];
      expect(byAction(reported, 'updated').sort()).toEqual(['stu-2001', 'stu-2002']);
      expect(byAction(reported, 'disabled')).toEqual([leaver.id]);
      expect(reported.find((item) => item.id === 'stu-2001')!.changes).toContainEqual({
        field: 'LastName',
        known: true,
        before: 'Haddad',
        after: 'Haddad-Smith',
      });
      // The next night runs the real export: the plan's file was what apply sent, so Martin is still Martin.
      const next = await cli(['user', 'sync', '--file', 'export.csv', '--dry-run', '--json']);
      const nextItems = JSON.parse(next.stdout).items as Item[];
      expect(nextItems.find((item) => item.id === 'stu-2003')!.action).toBe('updated');
    }));

  it("the plan's disables and prunes are exactly what apply does; the next night does not disable them again", () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      const tonight = [...lines];
      // A mover: from H-NORTH to H-SOUTH; three leavers.
      tonight[1] = tonight[1]!.replace('H-NORTH', 'H-SOUTH');
      tonight.splice(10, 3);
      await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
      const flags = ['--file', 'export.csv', '--disable-missing', '--prune-memberships'];
      expect((await cli(['user', 'sync', ...flags, '--dry-run', '--plan-out', 'plan.json'])).code).toBe(0);
      const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
      expect(plan.counts.disable).toBe(3);
      expect(plan.counts.prune).toBe(1);
      expect(plan.judged).toEqual([
        expect.stringContaining('3 to disable: within --max-disable'),
        expect.stringMatching(/^1 mover to prune: within --max-prune/),
      ]);
      const mover = (plan.items as Item[]).find((item) => item.action === 'prune')!;
      expect(mover.removed).toEqual(['H-NORTH']);
      expect((await cli(['apply', 'plan.json', '--report', 'applied.json'])).code).toBe(0);
      const reported = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).items as Item[];
      expect(byAction(reported, 'disabled').sort()).toEqual(byAction(plan.items, 'disable').sort());
      expect(reported.filter((item) => item.removed !== undefined).map((item) => item.id)).toEqual([mover.id]);
      // The next night, the same export: nobody is disabled or pruned again.
      const next = await cli(['user', 'sync', ...flags, '--report', 'next.json']);
      expect(next.code).toBe(0);
      const nextItems = JSON.parse(await readFile(join(dir, 'next.json'), 'utf8')).items as Item[];
      expect(byAction(nextItems, 'disabled')).toEqual([]);
      expect(nextItems.filter((item) => item.removed !== undefined)).toEqual([]);
    }));

  it('one count per action: the plan file, the page, the dry run, --json and apply say the same', () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      const tonight = [...lines];
      // A mover, two surname edits, three leavers.
      tonight[1] = tonight[1]!.replace('H-NORTH', 'H-SOUTH');
      tonight[2] = tonight[2]!.replace(/,([^,]*),/, ',$1-X,');
      tonight[3] = tonight[3]!.replace(/,([^,]*),/, ',$1-X,');
      tonight.splice(10, 3);
      await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
      const flags = ['--file', 'export.csv', '--disable-missing', '--prune-memberships'];
      const dry = await cli([
        'user',
        'sync',
        ...flags,
        '--dry-run',
        '--plan-out',
        'plan.json',
        '--report',
        'plan.html',
      ]);
      expect(dry.code).toBe(0);
      const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
      expect(plan.counts).toMatchObject({ update: 2, prune: 1, disable: 3 });
      // The terminal's plan line: the mover is not an update too.
      expect(lineWith(dry.stderr, 'plan: ', '2 to update', '3 to disable', '1 to prune')).toBeTruthy();
      // The page's tiles, one per action, the same numbers.
      const page = await readFile(join(dir, 'plan.html'), 'utf8');
      const tiles = [...page.matchAll(/href="#(\w+)"><span class="n">(\d+)</g)].map((m) => [m[1], Number(m[2])]);
      expect(Object.fromEntries(tiles)).toEqual(plan.counts);
      const json = await cli(['user', 'sync', ...flags, '--dry-run', '--json']);
      const document = JSON.parse(json.stdout);
      expect(document.summary.actions).toEqual(plan.counts);
      expect(document.plan).toMatchObject({ toUpdate: 2, toPrune: 1, toDisable: 3 });
      const applied = await cli(['apply', 'plan.json', '--report', 'applied.json']);
      expect(applied.code).toBe(0);
      expect(lineWith(applied.stderr, '2 updated', '3 disabled', '1 pruned')).toBeTruthy();
      const summary = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).summary;
      expect(summary.actions).toEqual(plan.counts);
    }));

  it('apply names the reviewed file in its rows and problems, as the dry run did, not the copy it reads', () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      lines[1] = lines[1]!.replace('amira.haddad@', 'amira.haddad(at)');
      lines[2] = lines[2]!.replace('Okafor', 'Okafor-Lee');
      await mkdir(join(dir, 'in'));
      await writeFile(join(dir, 'in', 'export.csv'), `${lines.join('\n')}\n`);
      const planned = await cli(['user', 'sync', '--file', 'in/export.csv', '--dry-run', '--plan-out', 'plan.json']);
      expect(lineWith(planned.stderr, '[stu-2001]')).toContain('in/export.csv:2 ');
      const applied = await cli(['apply', 'plan.json', '--report', 'applied.json']);
      expect(applied.code).toBe(1);
      expect(lineWith(applied.stderr, '[stu-2001]')).toContain('  in/export.csv:2 ');
      const sources = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).items.map(
        (item: { source: { file: string; line: number } }) => `${item.source.file}:${item.source.line}`,
      );
      expect(sources.slice(0, 2)).toEqual(['in/export.csv:2', 'in/export.csv:3']);
    }));

  it('a plan applied twice sends nothing the second time, and says so', () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      lines[1] = lines[1]!.replace('Haddad', 'Haddad-Smith');
      await writeFile(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
      await cli(['user', 'sync', '--file', 'export.csv', '--dry-run', '--plan-out', 'plan.json']);
      expect((await cli(['apply', 'plan.json'])).code).toBe(0);
      const again = await cli(['apply', 'plan.json', '--report', 'again.json']);
      expect(again.code).toBe(0);
      expect(again.stderr).toContain('applied already');
      expect(again.stderr).toContain('nothing was sent');
      await expect(stat(join(dir, 'again.json'))).rejects.toThrow();
    }));

  it('refuses (exit 2, nothing sent) an edited plan, another target, a store or memory that moved, an old plan', () =>
    withTempDir(async (dir) => {
      const { cli, raw, lines } = await firstNight(dir);
      lines[1] = lines[1]!.replace('Haddad', 'Haddad-Smith');
      await writeFile(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
      const plan = async () =>
        expect((await cli(['user', 'sync', '--file', 'export.csv', '--dry-run', '--plan-out', 'plan.json'])).code).toBe(
          0,
        );
      await plan();
      const text = await readFile(join(dir, 'plan.json'), 'utf8');
      await writeFile(join(dir, 'edited.json'), text.replace('Haddad-Smith', 'Haddad-Jones'));
      const edited = await cli(['apply', 'edited.json']);
      expect(edited.code).toBe(2);
      expectCoded(edited.stderr, 'E2600', 'edited.json', 'checksum');
      const other = await raw(['apply', 'plan.json', '--store', join(dir, 'other')]);
      expect(other.code).toBe(2);
      expectCoded(other.stderr, 'E2601', join(dir, 'store'));
      const old = await cli(['apply', 'plan.json'], { now: () => new Date(Date.now() + 25 * 3600_000) });
      expect(old.code).toBe(2);
      expect(old.stderr).toContain('older than --max-age');
      // The limit is said as given: `1m` is 1 min, `1ms` 1 ms (never "0 s"); an age under two minutes in seconds.
      const created = Date.parse(JSON.parse(text).created);
      for (const [given, age, ageSaid, limitSaid] of [
        ['1m', 90_000, '1 min 30 s', '1 min'],
        ['1ms', 500, '500 ms', '1 ms'],
        ['1h 30m', 100 * 60_000, '1 h 40 min', '1 h 30 min'],
      ] as const) {
        const short = await cli(['apply', 'plan.json', '--max-age', given], { now: () => new Date(created + age) });
        expect(short.code).toBe(2);
        expectCoded(
          short.stderr,
          'E2601',
          'plan.json',
          JSON.parse(text).created,
          ` ${ageSaid} ago`,
          `--max-age ${limitSaid} `,
        );
      }
      // Another run changes the store and its memory after the review.
      await writeFile(join(dir, 'one.csv'), `${lines[0]}\n${lines[2]!.replace('Okafor', 'Okafor-Lee')}\n`);
      expect((await cli(['user', 'sync', '--file', 'one.csv'])).code).toBe(0);
      const moved = await cli(['apply', 'plan.json', '--report', 'moved.json']);
      expect(moved.code).toBe(2);
      // Plainly: the store and its heads then and now, never 'its position is not the plan's'.
      const made = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')).store as string;
      expectCoded(moved.stderr, 'E2601', 'plan.json', `local store ${join(dir, 'store')}`, made);
      expect(moved.stderr).not.toContain('position');
      await expect(stat(join(dir, 'moved.json'))).rejects.toThrow();
      // The input's kept copy gone (another --runs-dir, removed): refused, nothing sent.
      await plan();
      const { id } = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { id: string };
      await rm(join(dir, 'runs', 'plans', id, 'file-export.csv'));
      const gone = await cli(['apply', 'plan.json']);
      expect(gone.code).toBe(2);
      expect(gone.stderr).toMatch(/E2601: .*file-export\.csv/);
      // The memory alone, exported, forgotten and imported again since the plan: no other run fed it, and the
      // refusal does not say one did.
      await plan();
      expect((await cli(['synced', 'export', '--out', 'memory.json'])).code).toBe(0);
      expect((await cli(['synced', 'forget', '--target', 'local'])).code).toBe(0);
      expect((await cli(['synced', 'import', 'memory.json'])).code).toBe(0);
      const reimported = await cli(['apply', 'plan.json']);
      expect(reimported.code).toBe(2);
      expectCoded(reimported.stderr, 'E2601', 'sync memory', 'imported');
      // The memory alone: forgotten since the plan.
      await plan();
      expect((await cli(['synced', 'forget', '--target', 'local'])).code).toBe(0);
      const forgotten = await cli(['apply', 'plan.json']);
      expect(forgotten.code).toBe(2);
      expect(forgotten.stderr).toContain('sync memory');
      // Nothing of the plan was sent: Haddad is Haddad still.
      const check = await cli(['user', 'sync', '--file', 'export.csv', '--dry-run', '--json']);
      const items = JSON.parse(check.stdout).items as Item[];
      expect(items.find((item) => item.id === 'stu-2001')!.action).toBe('updated');
    }));

  it("a plain local sync reads before values from the engine's own view: the store is not opened twice", () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      lines[1] = lines[1]!.replace('Haddad', 'Haddad-Smith');
      await writeFile(join(dir, 'export.csv'), `${lines.join('\n')}\n`);
      let directories = 0;
      const openDirectory: CommandDeps['openDirectory'] = async () => {
        directories += 1;
        throw new Error('not opened here');
      };
      for (const dryRun of [['--dry-run'], []]) {
        const run = await cli(['user', 'sync', '--file', 'export.csv', ...dryRun, '--json'], { openDirectory });
        expect(run.code, run.stderr).toBe(0);
        const haddad = (JSON.parse(run.stdout).items as Item[]).find((item) => item.id === 'stu-2001')!;
        expect(haddad.changes).toContainEqual({
          field: 'LastName',
          known: true,
          before: 'Haddad',
          after: 'Haddad-Smith',
        });
      }
      expect(directories).toBe(0);
    }));

  it("a field the store's record lacks has no value: left out or its default is no change, set is (no value) -> value", () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs') };
      const cli = async (args: string[]) => {
        const each = testDeps(dir, {}, env);
        const code = await runCli(['--store', join(dir, 'store'), ...args], each.deps);
        return { code, stderr: each.stderr.text, stdout: each.stdout.text };
      };
      // Made from a file without Labels, SpecialNeeds or Company: the store's records lack them.
      const lines = (await readFile(USERS, 'utf8')).trimEnd().split('\n').slice(0, 5);
      const bare = lines.map((line) => line.split(',').slice(0, 7).join(','));
      await writeFile(join(dir, 'first.csv'), `${bare.join('\n')}\n`);
      expect((await cli(['user', 'sync', '--file', 'first.csv'])).code).toBe(0);
      // Tonight: stu-2001 gets labels, stu-2002 SpecialNeeds no and no labels, stu-2003 a company, stu-2004 as before.
      const tonight = [
        `${bare[0]},Labels,SpecialNeeds,Company`,
        `${bare[1]},cohort-2026,,`,
        `${bare[2]},,no,`,
        `${bare[3]},,,Example Corp`,
        `${bare[4]},,,`,
      ];
      await writeFile(join(dir, 'tonight.csv'), `${tonight.join('\n')}\n`);
      const dry = await cli([
        'user',
        'sync',
        '--file',
        'tonight.csv',
        '--dry-run',
        '--plan-out',
        'plan.json',
        '--report',
        'plan.html',
      ]);
      expect(dry.code, dry.stderr).toBe(0);
      const planned = await items(join(dir, 'plan.json'));
      const changes = (id: string) => planned.find((item) => item.id === id)!.changes;
      expect(changes('stu-2001')).toEqual([{ field: 'Labels', known: true, after: ['cohort-2026'] }]);
      // SpecialNeeds no where the record has none: no change listed (the engine stores the false: an update).
      expect(planned.find((item) => item.id === 'stu-2002')!.action).toBe('update');
      expect(changes('stu-2002') ?? []).toEqual([]);
      expect(changes('stu-2003')).toEqual([{ field: 'Company', known: true, after: 'Example Corp' }]);
      expect(planned.find((item) => item.id === 'stu-2004')!.action).toBe('unchanged');
      expect(planned.flatMap((item) => item.changes ?? []).filter((change) => !change.known)).toEqual([]);
      // The page draws it as (no value) -> value, never "not known".
      const page = await readFile(join(dir, 'plan.html'), 'utf8');
      const row = page.split('\n').find((line) => line.includes('"stu-2001"'))!;
      expect(row).toContain('[["Labels","(no value)"]]');
      expect(row).toContain('[["Labels","[\\"cohort-2026\\"]"]]');
      expect(page).not.toMatch(/"stu-200\d".*\["\w+",null\]/);
    }));

  it('a password is withheld in the plan, its digest still the request sent: apply sends it', () =>
    withTempDir(async (dir) => {
      const { cli, lines } = await firstNight(dir);
      const header = `${lines[0]},Password`;
      await writeFile(join(dir, 'export.csv'), `${header}\n${lines[1]},Secret-123\n${lines[2]},\n`);
      expect((await cli(['user', 'sync', '--file', 'export.csv', '--dry-run', '--plan-out', 'plan.json'])).code).toBe(
        0,
      );
      const text = await readFile(join(dir, 'plan.json'), 'utf8');
      expect(text).not.toContain('Secret-123');
      const planned = JSON.parse(text).items as (Item & { request?: { Password?: string } })[];
      expect(planned[0]!.request!.Password).toBe('(withheld)');
      expect(planned[0]!.changes).toEqual([{ field: 'Password', known: false }]);
      const applied = await cli(['apply', 'plan.json', '--report', 'applied.json']);
      expect(applied.code, applied.stderr).toBe(0);
      const reported = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).items as Item[];
      expect(byAction(reported, 'updated')).toEqual(['stu-2001']);
    }));

  it('--plan-out needs --dry-run', () =>
    withTempDir(async (dir) => {
      const { cli } = await firstNight(dir);
      const run = await cli(['user', 'sync', '--file', 'users.csv', '--plan-out', 'plan.json']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--plan-out goes with --dry-run');
    }));
});
