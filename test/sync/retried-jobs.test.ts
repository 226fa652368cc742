import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * docs/ci.md, "A job that runs twice": a CI job retried after it did its work ends green with the
 * target as it was. `invigilators remove --missing-ok` counts a 319 as ok ("already not an
 * invigilator", its own note in every report); `collection add --existing ok` reports an 810 for
 * the collection examctl sent before as unchanged, and fails one with other fields naming them.
 */

const WORLD = resolve(__dirname, '../../fixtures/world.json');
const COLLECTION = resolve(__dirname, '../../fixtures/collection.json');

interface Item {
  id: string;
  status: string;
  action?: string;
  note?: string;
  errors: { code: number | null; message: string }[];
}
interface Document {
  items: Item[];
  summary: Record<string, number>;
  run?: string;
}

async function run(dir: string, argv: string[], env: Record<string, string> = {}) {
  const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), ...env });
  const code = await runCli(argv, io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text, json: () => JSON.parse(io.stdout.text) as Document };
}

async function seeded(dir: string): Promise<string[]> {
  expect(await runCli(['local', 'init', '--store', join(dir, 'store'), '--seed', WORLD], testDeps(dir).deps)).toBe(0);
  return ['--target', 'local', '--store', join(dir, 'store')];
}

async function exported(
  dir: string,
): Promise<{ Schedules: { ScheduleExtId: string; Invigilators: string[] }[]; Collections: Record<string, unknown>[] }> {
  return JSON.parse((await run(dir, ['local', 'export', '--store', join(dir, 'store')])).stdout);
}

const NOTE = 'already not an invigilator of S-FUTURE (the service answered 319): nothing to remove (--missing-ok)';

describe('invigilators remove, retried', () => {
  it('with --missing-ok the retry exits 0, every id ok with its note in JSON, CSV, xlsx, JUnit and runs show; the schedule as the first run left it', async () => {
    await withTempDir(async (dir) => {
      const store = await seeded(dir);
      const job = (...more: string[]) =>
        run(dir, [...store, 'invigilators', 'remove', 'S-FUTURE', 'inv-1', 'inv-2', '--missing-ok', ...more]);
      const first = await job('--json');
      expect(first.code, first.stderr).toBe(0);
      expect(first.json().items.map((item) => [item.id, item.status, item.action])).toEqual([
        ['inv-1', 'ok', 'removed'],
        ['inv-2', 'ok', 'removed'],
      ]);
      const after = (await exported(dir)).Schedules.find(
        (schedule) => schedule.ScheduleExtId === 'S-FUTURE',
      )?.Invigilators;
      expect(after).toEqual(['inv-3']);

      const retry = await job('--json', '--report', 'retry.csv');
      expect(retry.code, retry.stderr).toBe(0);
      const doc = retry.json();
      expect(doc.items.map((item) => [item.id, item.status, item.action, item.note, item.errors])).toEqual([
        ['inv-1', 'ok', 'unchanged', NOTE, []],
        ['inv-2', 'ok', 'unchanged', NOTE, []],
      ]);
      // Nothing was removed: the actions say what the items say.
      expect(doc.summary).toEqual({
        actions: { unchanged: 2 },
        total: 2,
        ok: 2,
        partial: 0,
        failed: 0,
        skipped: 0,
        created: 0,
        updated: 0,
        unchanged: 2,
      });
      expect(lineWith(retry.stderr, 'not invigilators of S-FUTURE', 'inv-1, inv-2')).toBeTruthy();
      const csv = (await readFile(join(dir, 'retry.csv'), 'utf8'))
        .trimEnd()
        .replaceAll(/,\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{4}$/gm, ',<run>')
        .split('\r\n');
      expect(csv).toEqual([
        'file,line,id,schedule,status,error_codes,error_messages,action,note,run',
        `<arguments>,1,inv-1,S-FUTURE,ok,,,unchanged,${NOTE},<run>`,
        `<arguments>,2,inv-2,S-FUTURE,ok,,,unchanged,${NOTE},<run>`,
      ]);
      expect(
        (await exported(dir)).Schedules.find((schedule) => schedule.ScheduleExtId === 'S-FUTURE')?.Invigilators,
      ).toEqual(['inv-3']);

      const junit = await job('--report', 'retry.xml');
      expect(junit.code).toBe(0);
      const xml = await readFile(join(dir, 'retry.xml'), 'utf8');
      expect(xml).toContain(`<system-out>action: unchanged\nnote: ${NOTE}</system-out>`);
      expect(xml).toContain('failures="0"');
      const xlsx = await job('--report', 'retry.xlsx');
      expect(xlsx.code).toBe(0);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(join(dir, 'retry.xlsx'));
      const cells = (line: number) =>
        Array.from(
          ((workbook.worksheets[0] as ExcelJS.Worksheet).getRow(line).values as unknown[]).slice(1),
          (value) => (value === undefined || value === null ? '' : String(value)),
        );
      expect(cells(1).slice(3, 10)).toEqual([
        'schedule',
        'status',
        'error_codes',
        'error_messages',
        'action',
        'note',
        'run',
      ]);
      expect(cells(2).slice(3, 9)).toEqual(['S-FUTURE', 'ok', '', '', 'unchanged', NOTE]);

      const shown = await run(dir, ['--json', 'runs', 'show', doc.run!]);
      expect(shown.code).toBe(0);
      expect(shown.json().items.map((item) => item.note)).toEqual([NOTE, NOTE]);

      // Without the flag the same retry fails the id: 319, "not an invigilator of S-FUTURE", exit 1.
      const plain = await run(dir, [...store, '--json', 'invigilators', 'remove', 'S-FUTURE', 'inv-1']);
      expect(plain.code).toBe(1);
      expect(plain.json().items[0]).toMatchObject({
        status: 'failed',
        errors: [expect.objectContaining({ code: 319 })],
        note: 'not an invigilator of S-FUTURE: nothing to remove (with --missing-ok that is ok)',
      });
    });
  });

  it('a 319 answered for one id of the list is ok with --missing-ok; any other code still fails it', async () => {
    await withTempDir(async (dir) => {
      const store = await seeded(dir);
      const mixed = await run(dir, [
        ...store,
        '--json',
        'invigilators',
        'remove',
        'S-ARCHIVED',
        'inv-2',
        '--missing-ok',
      ]);
      // An archived schedule is 302 for the whole list: not a 319, so not ok.
      expect(mixed.code).toBe(1);
      expect(mixed.json().items[0]).toMatchObject({
        status: 'failed',
        errors: expect.arrayContaining([expect.objectContaining({ code: 302 })]),
      });
      const some = await run(dir, [
        ...store,
        '--json',
        'invigilators',
        'remove',
        'S-LIVE',
        'inv-3',
        'inv-1',
        '--missing-ok',
      ]);
      expect(some.json().items.map((item) => [item.id, item.status, item.action])).toEqual([
        ['inv-3', 'ok', 'removed'],
        ['inv-1', 'ok', 'unchanged'],
      ]);
    });
  });
});

describe('collection add, retried', () => {
  it('local: --existing ok makes the retry exit 0 unchanged; other fields fail naming them; one examctl never sent fails saying so', async () => {
    await withTempDir(async (dir) => {
      const store = await seeded(dir);
      const job = (file: string, ...more: string[]) =>
        run(dir, [...store, '--json', 'collection', 'add', '--file', file, '--existing', 'ok', ...more]);
      const first = await job(COLLECTION);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json().items[0]).toMatchObject({ id: 'physics2027', status: 'ok', action: 'created' });
      const before = (await exported(dir)).Collections;

      const retry = await job(COLLECTION, '--report', 'retry.csv');
      expect(retry.code, retry.stderr).toBe(0);
      expect(retry.json().items[0]).toMatchObject({ id: 'physics2027', status: 'ok', action: 'unchanged', errors: [] });
      expect(retry.json().items[0]!.note).toMatch(
        /^exists as examctl sent it \(run \S+\): not created again \(--existing ok\)$/,
      );
      expect(retry.json().summary).toMatchObject({ ok: 1, unchanged: 1 });
      expect((await readFile(join(dir, 'retry.csv'), 'utf8')).split('\r\n')[1]).toMatch(
        /,ok,,,unchanged,exists as examctl sent it/,
      );
      expect((await exported(dir)).Collections).toEqual(before);

      // The file changed since: the API cannot update a collection, so it fails naming the change.
      const changed = JSON.parse(await readFile(COLLECTION, 'utf8')) as Record<string, unknown>;
      await writeFile(join(dir, 'changed.json'), JSON.stringify({ ...changed, Title: 'Physics 2027 (new)' }));
      const other = await job('changed.json');
      expect(other.code).toBe(1);
      const problem = other.json().items[0]!.errors[0]!;
      expect(problem.code).toBe(810);
      expect(problem.message).toMatch(
        /^collection physics2027 exists on local store .* with other fields than examctl sent it \(run \S+\): Title "Physics 2027" then, "Physics 2027 \(new\)" now; the API cannot update a collection/,
      );
      expect((await exported(dir)).Collections).toEqual(before);

      // In the demo world, never sent by examctl: it cannot tell.
      await writeFile(
        join(dir, 'theirs.json'),
        JSON.stringify({ ExternalId: 'mathcore2026', Title: 'Mathematics core 2026', Owner: 'scheduler' }),
      );
      const theirs = await job('theirs.json');
      expect(theirs.code).toBe(1);
      // 810 as the service said, with what examctl knows: no record of it, and how to adopt it.
      expect(theirs.json().items[0]!.errors[0]).toMatchObject({
        code: 810,
        message: expect.stringMatching(/^collection mathcore2026 .*no record.*examctl synced adopt-collections/),
      });

      // Without --existing ok an 810 fails as the service said; a dry run decides as the real run.
      const plain = await run(dir, [...store, '--json', 'collection', 'add', '--file', COLLECTION]);
      expect(plain.code).toBe(1);
      expect(plain.json().items[0]!.errors[0]!.code).toBe(810);
      expect(
        (await run(dir, [...store, '--dry-run', 'collection', 'add', '--file', COLLECTION, '--existing', 'ok'])).code,
      ).toBe(0);
    });
  });

  describe('remote', () => {
    let service: FaultServer;
    const created = new Set<string>();
    beforeEach(async () => {
      created.clear();
      service = await startFaultServer();
      // The platform: a collection id is used once; the second POST of it is 810.
      service.fallback = (request) => {
        const id = (JSON.parse(request.body) as { ExternalId: string }).ExternalId;
        if (created.has(id))
          return {
            status: 400,
            body: { Content: null, Success: false, Errors: [{ Code: 810, Message: 'ExternalId already used' }] },
          };
        created.add(id);
        return okEnvelope({ ExternalId: id, Errors: [] });
      };
    });
    afterEach(async () => {
      await service.close();
    });

    it('the retried job exits 0 with the collection unchanged, and the platform asked to create it once more only', async () => {
      await withTempDir(async (dir) => {
        const job = () =>
          run(
            dir,
            [
              '--target',
              'remote',
              '--base-url',
              service.url,
              '--allow-insecure-http',
              '--yes',
              '--json',
              'collection',
              'add',
              '--file',
              COLLECTION,
              '--existing',
              'ok',
            ],
            { EXAMCTL_TOKEN: 't' },
          );
        const first = await job();
        expect(first.code, first.stderr).toBe(0);
        expect(first.json().items[0]).toMatchObject({ status: 'ok', action: 'created' });
        const retry = await job();
        expect(retry.code, retry.stderr).toBe(0);
        expect(retry.json().items[0]).toMatchObject({ status: 'ok', action: 'unchanged' });
        expect(service.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
        expect([...created]).toEqual(['physics2027']);
      });
    });
  });
});
