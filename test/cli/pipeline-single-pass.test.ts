import { describe, it, expect } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IntegrationApi } from '../../src/port/integration-api.js';
import { privateTempRoot } from '../../src/system/private-temp.js';
import { runCli } from '../../src/cli/run-cli.js';
import { unitPerRecord, type RecordJob } from '../../src/pipeline/record-job.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { outcomeOf } from '../../src/pipeline/service-answer.js';
import { targetOnce } from '../../src/context/target.js';
import { USER_COLUMNS } from '../../src/domain/columns.js';
import { readCsvRecords, reportStatusOf } from '../../src/input/csv-reader.js';
import { readRecords } from '../../src/input/format.js';
import type { InputRecord } from '../../src/input/record.js';
import { SpoolSink } from '../../src/system/text-sink.js';
import { StringSink } from '../support/string-sink.js';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { testDeps, withTempDir } from './helpers.js';
import { expectOnlyErrorDocument } from '../support/error-document.js';
import { lineWith } from '../support/facts.js';

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';

function userRows(count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return `u-${n},Ada,Ng,u${n}@example.test,user${n},Candidate`;
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function cli(
  dir: string,
  argv: string[],
  overrides: Partial<CommandDeps> = {},
  env: Record<string, string> = {},
) {
  const io = testDeps(dir, overrides, env);
  const code = await runCli(['--store', join(dir, 'store'), ...argv], io.deps);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

/** This process's spool files left in the private temp folder (there must be none after a run). */
async function spoolFiles(): Promise<string[]> {
  return (await readdir(await privateTempRoot())).filter((name) => name.startsWith(`${process.pid}@`));
}

describe('dry run: one read, report held back until the read completed', () => {
  it('a structural error on the last line: exit 2 with file:line, nothing on stdout, no report file', async () => {
    await withTempDir(async (dir) => {
      // Enough rows that the report passes the BufferedSink's chunk size long before the error.
      const rows = userRows(3000);
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${rows.join('\n')}\nu-x,"unclosed,Ng,x@example.test,ux,Candidate\n`);
      const lastLine = rows.length + 2;
      const { code, stdout, stderr } = await cli(dir, [
        'user',
        'sync',
        '--file',
        input,
        '--dry-run',
        '--json',
        '--report',
        join(dir, 'out.json'),
      ]);
      expect(code).toBe(2);
      expectOnlyErrorDocument(stdout, 2);
      expect(stderr).toContain(`users.csv:${lastLine}: quote not closed`);
      expect(stderr).not.toContain('3000 items');
      expect((await readdir(dir)).filter((name) => name.includes('out.json'))).toEqual([]);
      expect(await spoolFiles()).toEqual([]);
    });
  });

  it('a ragged last row after 40k good rows: exit 2, stdout empty, no spool file left', async () => {
    await withTempDir(async (dir) => {
      const rows = userRows(40_000);
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${rows.join('\n')}\nu-y,Ada\n`);
      const { code, stdout, stderr } = await cli(dir, ['user', 'sync', '--file', input, '--dry-run', '--json']);
      expect(code).toBe(2);
      expectOnlyErrorDocument(stdout, 2);
      expectCoded(stderr, 'E2100', `users.csv:${rows.length + 2}:`, '2 cells', '6 columns');
      expect(await spoolFiles()).toEqual([]);
    });
  });

  it('a complete dry run still prints exactly one JSON document, items in input order with their lines', async () => {
    await withTempDir(async (dir) => {
      const rows = userRows(40_000);
      rows[1] = 'u-2,Ada,Ng,not-an-email,user2,Candidate';
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${rows.join('\n')}\n`);
      const { code, stdout } = await cli(dir, ['user', 'sync', '--file', input, '--dry-run', '--json']);
      expect(code).toBe(1);
      const doc = JSON.parse(stdout);
      expect(doc.items).toHaveLength(40_000);
      expect(
        doc.items.slice(0, 3).map((i: { source: { line: number }; status: string }) => `${i.source.line}:${i.status}`),
      ).toEqual(['2:ok', '3:failed', '4:ok']);
      expect(doc.items[39_999].source.line).toBe(40_001);
      expect(doc.summary).toMatchObject({ total: 40_000, ok: 39_999, partial: 0, failed: 1, skipped: 0 });
      expect(await spoolFiles()).toEqual([]);
    });
  });

  it('a dry run reads its input once; a real run twice (structure first, then send)', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${userRows(5).join('\n')}\n`);
      let reads = 0;
      const job: RecordJob<{ id: string }> = {
        command: 'test run',
        records: () => {
          reads += 1;
          return readCsvRecords(input, {
            columns: [{ name: 'ExternalId', kind: 'string' }],
            ignoreUnknownColumns: true,
          });
        },
        ...unitPerRecord((record: InputRecord) => ({
          source: record.source,
          id: String(record.fields.ExternalId),
          prepared: { ok: true, value: { id: String(record.fields.ExternalId) } },
        })),
        send: async () => outcomeOf({ status: 200, envelope: { Content: null, Success: true, Errors: null } }),
      };
      const fakeApi = async () => ({ close: async () => {} }) as unknown as IntegrationApi;
      const dry = testDeps(dir, { openApi: fakeApi });
      expect((await runPipeline(job, { dryRun: true, json: true }, dry.deps, targetOnce({}, dry.deps))).exitCode).toBe(
        0,
      );
      expect(reads).toBe(1);
      expect(JSON.parse(dry.stdout.text).summary.ok).toBe(5);
      reads = 0;
      const real = testDeps(dir, { openApi: fakeApi });
      expect((await runPipeline(job, { json: true }, real.deps, targetOnce({}, real.deps))).exitCode).toBe(0);
      expect(reads).toBe(2);
    });
  });
});

describe('batched records, one unit per record', () => {
  it('--max-errors in a dry run: items stay in input order, the rest is skipped', async () => {
    await withTempDir(async (dir) => {
      const rows = userRows(10);
      rows[1] = 'u-2,Ada,Ng,bad-email,user2,Candidate';
      rows[3] = 'u-4,Ada,Ng,bad-email,user4,Candidate';
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${rows.join('\n')}\n`);
      const { code, stdout, stderr } = await cli(dir, [
        'user',
        'sync',
        '--file',
        input,
        '--dry-run',
        '--json',
        '--max-errors',
        '2',
      ]);
      expect(code).toBe(1);
      const doc = JSON.parse(stdout);
      expect(doc.items.map((i: { status: string }) => i.status)).toEqual([
        'ok',
        'failed',
        'ok',
        'failed',
        ...Array(6).fill('skipped'),
      ]);
      expect(doc.items.map((i: { source: { line: number } }) => i.source.line)).toEqual([
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
      ]);
      expect(lineWith(stderr, '2 failed', '--max-errors')).toMatch(/^stopped /);
    });
  });
});

describe('the structure pass of a real run (countRecords)', () => {
  it('counts what a full read yields, --only-failed rows included, and fails as a full read does', async () => {
    await withTempDir(async (dir) => {
      const report = join(dir, 'report.csv');
      await writeFile(
        report,
        `${HEADER},status,error_codes,error_messages\r\n${userRows(5)
          .map((row, i) => `${row},${i % 2 === 0 ? ' OK ' : 'failed'},,`)
          .join('\r\n')}\r\n\r\n`,
      );
      const records = readRecords(report, { columns: USER_COLUMNS });
      const all = await collect(records);
      expect(await records.countRecords?.(false)).toBe(all.length);
      expect(all).toHaveLength(5);
      expect(await records.countRecords?.(true)).toBe(
        all.filter((r) => reportStatusOf(r)?.trim().toLowerCase() !== 'ok').length,
      );
      expect(await records.countRecords?.(true)).toBe(2);

      const broken = join(dir, 'broken.csv');
      await writeFile(broken, `${HEADER},Shoe Size\n${userRows(2).join(',x\n')},x\n`);
      const full = await collect(readRecords(broken, { columns: USER_COLUMNS })).catch((error: Error) => error.message);
      const counted = await readRecords(broken, { columns: USER_COLUMNS })
        .countRecords?.(false)
        .catch((error: Error) => error.message);
      expect(counted).toMatch(/broken\.csv:1: unknown column: "Shoe Size"/);
      expect(counted).toBe(full);
    });
  });
});

describe('SpoolSink', () => {
  it('spills past its memory bound and gives everything back in order on commit', async () => {
    const out = new StringSink();
    const spool = new SpoolSink(out, 100);
    const parts = Array.from({ length: 500 }, (_, i) => `part ${i} é😀;`);
    for (const part of parts) await spool.write(part);
    expect(out.text).toBe('');
    expect(await spoolFiles()).toEqual([]); // unlinked while open
    await spool.commit();
    expect(out.text).toBe(parts.join(''));
  });

  it('discard drops everything and leaves no file behind', async () => {
    const out = new StringSink();
    const spool = new SpoolSink(out, 10);
    for (let i = 0; i < 100; i++) await spool.write(`line ${i}\n`);
    await spool.discard();
    expect(out.text).toBe('');
    expect(await spoolFiles()).toEqual([]);
    expect(() => spool.write('late')).toThrow(/after commit or discard/);
  });
});

describe('real run on the local engine', () => {
  it('a structural error anywhere: exit 2, no store created, nothing sent', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      await writeFile(input, `${HEADER}\n${userRows(3000).join('\n')}\nu-x,"unclosed\n`);
      const { code, stdout } = await cli(dir, ['user', 'sync', '--file', input, '--json']);
      expect(code).toBe(2);
      expectOnlyErrorDocument(stdout, 2);
      expect(existsSync(join(dir, 'store'))).toBe(false);
    });
  });

  it('--only-failed on a CSV report re-sends only the rows that were not ok', async () => {
    await withTempDir(async (dir) => {
      const input = join(dir, 'users.csv');
      const rows = userRows(6);
      rows[2] = 'u-3,Ada,Ng,bad-email,user3,Candidate';
      await writeFile(input, `${HEADER}\n${rows.join('\n')}\n`);
      const report = join(dir, 'report.csv');
      // A real run's report (a dry run's is refused by --only-failed: test/cli/loops.test.ts).
      expect(
        (
          await cli(
            dir,
            ['user', 'sync', '--file', input, '--report', report],
            {},
            { EXAMCTL_RUNS_DIR: join(dir, 'runs') },
          )
        ).code,
      ).toBe(1);
      const text = await readFile(report, 'utf8');
      expect(text.split(/\r?\n/)[3]).toMatch(/^u-3,.*,failed,/);
      const again = await cli(dir, ['user', 'sync', '--file', report, '--only-failed', '--dry-run', '--json']);
      const doc = JSON.parse(again.stdout);
      expect(doc.items.map((i: { id: string }) => i.id)).toEqual(['u-3']);
      expect(doc.items[0].source.line).toBe(4);
    });
  });
});
