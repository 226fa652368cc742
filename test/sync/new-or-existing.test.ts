import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { expectCoded } from '../support/coded-message.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';
import { lineWith, summaryOf } from '../support/facts.js';

/**
 * docs/sync.md, "Created or updated" and "New and existing"; docs/cli.md, "Created and updated":
 * every output says which ok records were created and which updated (a remote answer does not
 * say: the sync memory does, else `sent`), and --only-new / --only-existing send only one kind,
 * decided from the store (local) or the memory (remote), never overwriting a user they leave.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,Role';
const row = (id: string, first = 'Ann') => `${id},${first},Lee,${id}@example.test,Candidate`;

interface Item {
  id: string;
  status: string;
  action?: string;
  note?: string;
}
interface Document {
  items: Item[];
  summary: Record<string, number>;
  run?: string;
  error?: { exitCode: number };
}

async function run(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text, json: () => JSON.parse(io.stdout.text) as Document };
}

async function sheetRows(path: string): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const rows: string[][] = [];
  (workbook.worksheets[0] as ExcelJS.Worksheet).eachRow((sheetRow) => {
    rows.push(
      (sheetRow.values as unknown[])
        .slice(1)
        .map((value) => (value === undefined || value === null ? '' : String(value))),
    );
  });
  return rows;
}

const csvRows = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trimEnd()
    .split(/\r?\n/)
    .map((line) => line.split(','));

describe('remote: the sync memory tells created from updated; without one, sent', () => {
  let service: FaultServer;
  const received: string[] = [];
  beforeEach(async () => {
    received.length = 0;
    service = await startFaultServer();
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as { ExternalId: string };
      received.push(user.ExternalId);
      return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
  });
  afterEach(async () => {
    await service.close();
  });
  const remote = () => ['--target', 'remote', '--base-url', service.url, '--allow-insecure-http', '--yes'];
  const env = { EXAMCTL_TOKEN: 'test-token' };

  it('first run: sent; the next: created and updated apart in the summary, JSON, CSV, xlsx, JUnit and runs show', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'night1.csv'), `${HEADER}\n${['u-1', 'u-2', 'u-3'].map((id) => row(id)).join('\n')}\n`);
      const first = await run(dir, [...remote(), '--json', 'user', 'sync', '--file', 'night1.csv'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json().items.map((item) => item.action)).toEqual(['sent', 'sent', 'sent']);
      expect(first.json().summary).toMatchObject({ ok: 3, created: 0, updated: 0, sent: 3 });
      expect(lineWith(first.stderr, '3 ok: ', '3 sent', 'not known')).toBeTruthy();

      // u-2 renamed, u-4 and u-5 join.
      await writeFile(
        join(dir, 'night2.csv'),
        `${HEADER}\n${[row('u-1'), row('u-2', 'Anna'), row('u-3'), row('u-4'), row('u-5')].join('\n')}\n`,
      );
      const second = await run(
        dir,
        [...remote(), '--json', 'user', 'sync', '--file', 'night2.csv', '--report', 'r.csv'],
        env,
      );
      expect(second.code, second.stderr).toBe(0);
      const doc = second.json();
      expect(doc.items.map((item) => [item.id, item.action])).toEqual([
        ['u-1', 'updated'],
        ['u-2', 'updated'],
        ['u-3', 'updated'],
        ['u-4', 'created'],
        ['u-5', 'created'],
      ]);
      expect(doc.summary).toEqual({
        actions: { create: 2, update: 3 },
        total: 5,
        ok: 5,
        partial: 0,
        failed: 0,
        skipped: 0,
        created: 2,
        updated: 3,
        retried: 0,
        retriedByCause: {},
      });
      expect(summaryOf(second.stderr)).toMatchObject({ total: 5, ok: 5, partial: 0, failed: 0, skipped: 0 });
      expect(lineWith(second.stderr, '5 ok: ', '2 created', '3 updated')).toBeTruthy();
      const csv = await csvRows(join(dir, 'r.csv'));
      expect(csv[0]).toEqual([
        ...HEADER.split(','),
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
      ]);
      expect(csv.slice(1).map((cells) => cells[8])).toEqual(['updated', 'updated', 'updated', 'created', 'created']);
      // Each output of one run is its own request: the xlsx and JUnit reports of the same night again.
      const third = await run(dir, [...remote(), 'user', 'sync', '--file', 'night2.csv', '--report', 'r.xlsx'], env);
      expect(third.code).toBe(0);
      const sheet = await sheetRows(join(dir, 'r.xlsx'));
      expect(sheet[0]!.slice(-4)).toEqual(['action', 'note', 'run', 'warnings']);
      expect(sheet.slice(1).map((cells) => cells[8])).toEqual(['updated', 'updated', 'updated', 'updated', 'updated']);
      const junit = await run(dir, [...remote(), 'user', 'sync', '--file', 'night2.csv', '--report', 'r.xml'], env);
      expect(junit.code).toBe(0);
      const xml = await readFile(join(dir, 'r.xml'), 'utf8');
      expect(xml.match(/<system-out>action: updated<\/system-out>/g)).toHaveLength(5);

      // runs show rebuilds the second night's counts and columns from its journal.
      const shown = await run(dir, ['--json', 'runs', 'show', doc.run!, '--report', 'shown.csv']);
      expect(shown.code).toBe(0);
      expect(shown.json().summary).toEqual({
        actions: { create: 2, update: 3 },
        total: 5,
        ok: 5,
        partial: 0,
        failed: 0,
        skipped: 0,
        created: 2,
        updated: 3,
      });
      expect((await csvRows(join(dir, 'shown.csv'))).slice(1).map((cells) => cells[8])).toEqual([
        'updated',
        'updated',
        'updated',
        'created',
        'created',
      ]);
      expect(lineWith(shown.stderr, '5 ok: ', '2 created', '3 updated')).toBeTruthy();
    });
  });

  it('--only-new sends the new users only, never one examctl synced; --only-existing the others; neither without a memory', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'new.csv'), `${HEADER}\n${row('u-1')}\n${row('u-2')}\n`);
      // No memory yet: cannot tell, so refused before any request.
      const blind = await run(dir, [...remote(), '--json', 'user', 'sync', '--file', 'new.csv', '--only-new'], env);
      expect(blind.code).toBe(2);
      expectCoded(blind.stderr, 'E2501', '--only-new', 'users.ndjson');
      expect(blind.stderr).toMatch(/E2501: .*http:\/\/127\.0\.0\.1:\d+ /);
      expect(blind.json().error?.exitCode).toBe(2);
      expect(service.requests).toHaveLength(0);

      expect((await run(dir, [...remote(), 'user', 'sync', '--file', 'new.csv'], env)).code).toBe(0);
      received.length = 0;
      // A mistyped id would overwrite u-2 (another first name): --only-new leaves it alone.
      await writeFile(join(dir, 'mixed.csv'), `${HEADER}\n${row('u-2', 'Mistyped')}\n${row('u-3')}\n`);
      const onlyNew = await run(dir, [...remote(), '--json', 'user', 'sync', '--file', 'mixed.csv', '--only-new'], env);
      expect(onlyNew.code, onlyNew.stderr).toBe(0);
      expect(received).toEqual(['u-3']);
      expect(onlyNew.json().items).toEqual([
        expect.objectContaining({
          id: 'u-2',
          status: 'ok',
          action: 'left',
          note: 'on the target already, as the sync memory knows (examctl synced it there, or the target refused it as taken): not sent (--only-new)',
        }),
        expect.objectContaining({ id: 'u-3', status: 'ok', action: 'created' }),
      ]);
      expect(lineWith(onlyNew.stderr, '2 ok: ', '1 created', '1 left alone')).toBeTruthy();

      received.length = 0;
      await writeFile(join(dir, 'mixed2.csv'), `${HEADER}\n${row('u-1', 'Renamed')}\n${row('u-9')}\n`);
      const onlyExisting = await run(
        dir,
        [...remote(), '--json', 'user', 'sync', '--file', 'mixed2.csv', '--only-existing'],
        env,
      );
      expect(onlyExisting.code).toBe(0);
      expect(received).toEqual(['u-1']);
      expect(onlyExisting.json().items.map((item) => [item.id, item.action])).toEqual([
        ['u-1', 'updated'],
        ['u-9', 'left'],
      ]);
      // A left record was not sent: it stays new for the memory.
      received.length = 0;
      expect((await run(dir, [...remote(), 'user', 'sync', '--file', 'mixed2.csv', '--only-new'], env)).code).toBe(0);
      expect(received).toEqual(['u-9']);
    });
  });
});

describe('local: the store decides --only-new and --only-existing', () => {
  it('--only-new never sends a user the store holds (one examctl never synced), in a dry run and a real run', async () => {
    await withTempDir(async (dir) => {
      const store = ['--target', 'local', '--store', join(dir, 'store')];
      expect(
        await runCli(
          ['local', 'init', '--store', join(dir, 'store'), '--seed', join(__dirname, '../../fixtures/world.json')],
          testDeps(dir).deps,
        ),
      ).toBe(0);
      // c-1001 is in the demo world, never synced by examctl: a mistyped row would overwrite it.
      await writeFile(
        join(dir, 'joiners.csv'),
        `${HEADER}\nc-1001,Mistyped,Name,c-1001@example.test,Candidate\n${row('j-1')}\n`,
      );
      const dry = await run(dir, [...store, '--dry-run', 'user', 'sync', '--file', 'joiners.csv', '--only-new']);
      expect(dry.code).toBe(0);
      expect(lineWith(dry.stderr, 'plan: ', '1 to create', '1 left alone')).toBeTruthy();
      expect(dry.stderr).toMatch(/^ {2}\+ j-1\n {2}= c-1001 \(left alone\)$/m);
      const real = await run(dir, [...store, '--json', 'user', 'sync', '--file', 'joiners.csv', '--only-new']);
      expect(real.code, real.stderr).toBe(0);
      expect(real.json().items.map((item) => [item.id, item.action, item.note])).toEqual([
        ['c-1001', 'left', 'on the target already, in the store: not sent (--only-new)'],
        ['j-1', 'created', undefined],
      ]);
      expect(real.json().summary).toMatchObject({ created: 1, updated: 0, left: 1 });
      const world = JSON.parse((await run(dir, ['local', 'export', '--store', join(dir, 'store')])).stdout) as {
        Users: { ExternalId: string; FirstName: string }[];
      };
      expect(world.Users.find((user) => user.ExternalId === 'c-1001')?.FirstName).not.toBe('Mistyped');
      expect(world.Users.some((user) => user.ExternalId === 'j-1')).toBe(true);

      const existing = await run(dir, [...store, '--json', 'user', 'sync', '--file', 'joiners.csv', '--only-existing']);
      expect(existing.json().items.map((item) => [item.id, item.action])).toEqual([
        ['c-1001', 'updated'],
        ['j-1', 'unchanged'],
      ]);
      const both = await run(dir, [...store, 'user', 'sync', '--file', 'joiners.csv', '--only-new', '--only-existing']);
      expect(both.code).toBe(2);
      expectCoded(both.stderr, 'E2000', '--only-new', '--only-existing');
      const prompted = await run(dir, [...store, '--no-input', 'user', 'sync', '--only-new']);
      expect(prompted.code).toBe(2);
      expectCoded(prompted.stderr, 'E2000', '--only-new', '--file');
      expectCoded(
        (await run(dir, [...store, 'user', 'sync', '--file', 'joiners.csv', '--only-new', '--disable-missing'])).stderr,
        'E2000',
        '--only-new',
        '--disable-missing',
      );
    });
  });

  it('schedule push: --only-new leaves a schedule the store holds; --only-existing needs --upsert and leaves a new one', async () => {
    await withTempDir(async (dir) => {
      const store = ['--target', 'local', '--store', join(dir, 'store')];
      const sittings = (ids: string[]) =>
        `ScheduleExtId,AssessmentExtId,StartDateTime,GroupExtId,GroupName,CandidateExtId,FirstName,LastName,Email\n${ids
          .map((id, i) => `${id},A-MATH-1,2026-12-14T09:00:00Z,H-NORTH-DEC,North,c-${i},Ann,Lee,c${i}@example.test`)
          .join('\n')}\n`;
      await writeFile(join(dir, 'first.csv'), sittings(['S-DEC-1']));
      expect((await run(dir, [...store, 'schedule', 'push', '--file', 'first.csv'])).code).toBe(0);
      await writeFile(join(dir, 'both.csv'), sittings(['S-DEC-1', 'S-DEC-2']));
      const onlyNew = await run(dir, [...store, '--json', 'schedule', 'push', '--file', 'both.csv', '--only-new']);
      expect(onlyNew.code, onlyNew.stderr).toBe(0);
      expect(onlyNew.json().items.map((item) => [item.id, item.action])).toEqual([
        ['S-DEC-1', 'left'],
        ['S-DEC-2', 'created'],
      ]);
      expectCoded(
        (await run(dir, [...store, 'schedule', 'push', '--file', 'both.csv', '--only-existing'])).stderr,
        'E2000',
        '--only-existing',
        '--upsert',
      );
      await writeFile(join(dir, 'three.csv'), sittings(['S-DEC-1', 'S-DEC-3']));
      const onlyExisting = await run(dir, [
        ...store,
        '--json',
        'schedule',
        'push',
        '--file',
        'three.csv',
        '--only-existing',
        '--upsert',
      ]);
      expect(onlyExisting.code, onlyExisting.stderr).toBe(0);
      expect(onlyExisting.json().items.map((item) => [item.id, item.action])).toEqual([
        ['S-DEC-1', 'unchanged'],
        ['S-DEC-3', 'left'],
      ]);
      expect(onlyExisting.json().items[1]!.note).toBe('not on the target, in the store: not sent (--only-existing)');
    });
  });
});
