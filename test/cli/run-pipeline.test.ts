import { describe, it, expect } from 'vitest';
import type { ApiResult, IntegrationApi } from '../../src/port/integration-api.js';
import type { ApiFactory } from '../../src/context/command-deps.js';
import type { RecordJob } from '../../src/pipeline/record-job.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { outcomeOf } from '../../src/pipeline/service-answer.js';
import { targetOnce } from '../../src/context/target.js';
import { InterruptedError, TargetError } from '../../src/system/errors.js';
import type { InputRecord } from '../../src/input/record.js';
import { InputFileError } from '../../src/system/errors.js';
import { runCli } from '../../src/cli/run-cli.js';
import { readdir } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDeps, withTempDir } from './helpers.js';

type Payload = { id: string };

function records(ids: string[]): () => AsyncIterable<InputRecord> {
  return async function* () {
    for (const [index, id] of ids.entries())
      yield { source: { file: 'in.json', line: index + 1, index }, fields: { id } };
  };
}

function job(ids: string[], send: (id: string) => Promise<ApiResult<unknown>>): RecordJob<Payload> {
  return {
    command: 'test run',
    records: records(ids),
    // One unit per step, as a job that groups records yields them: each step is an await, so an
    // answer can come in (and stop the run) before the next unit is dispatched.
    async *units(batches) {
      for await (const batch of batches) {
        for (const record of batch) {
          const id = String(record.fields.id);
          yield [
            {
              source: record.source,
              id,
              prepared: id.startsWith('bad')
                ? { ok: false, problems: [{ field: 'id', code: null, message: 'bad id' }] }
                : { ok: true, value: { id } },
            },
          ];
        }
      }
    },
    send: async (_api, payload) => outcomeOf(await send(payload.id)),
  };
}

const okResult: ApiResult<unknown> = { status: 200, envelope: { Content: 'x', Success: true, Errors: null } };
const fakeApi = (): ApiFactory => async () => ({ close: async () => {} }) as unknown as IntegrationApi;

describe('runPipeline', () => {
  it('reports every item in input order although answers come out of order', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { openApi: fakeApi() });
      const delays: Record<string, number> = { a: 30, b: 1, c: 10 };
      const { exitCode: code } = await runPipeline(
        job(['a', 'b', 'c', 'bad-d'], (id) => new Promise((r) => setTimeout(() => r(okResult), delays[id]))),
        { json: true },
        io.deps,
        targetOnce({}, io.deps),
      );
      const doc = JSON.parse(io.stdout.text);
      expect(doc.items.map((i: { id: string; status: string }) => `${i.id}:${i.status}`)).toEqual([
        'a:ok',
        'b:ok',
        'c:ok',
        'bad-d:failed',
      ]);
      expect(code).toBe(1);
    });
  });

  it('maps Success false with any shape of Errors to failed with every message', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { openApi: fakeApi() });
      const answers: Record<string, unknown> = {
        a: 'plain text',
        b: ['one', 'two'],
        c: [{ Code: 806, Message: 'Owner not found' }],
        d: null,
      };
      await runPipeline(
        job(['a', 'b', 'c', 'd'], async (id) => ({
          status: 400,
          envelope: { Content: null, Success: false, Errors: answers[id] },
        })),
        { json: true },
        io.deps,
        targetOnce({}, io.deps),
      );
      const items = JSON.parse(io.stdout.text).items;
      expect(items[0].errors.map((e: { message: string }) => e.message)).toEqual(['plain text']);
      expect(items[1].errors.map((e: { message: string }) => e.message)).toEqual(['one', 'two']);
      expect(items[2].errors[0]).toMatchObject({ code: 806, message: 'Owner not found' });
      expect(items[3].status).toBe('failed');
      expect(items[3].errors[0].message).toContain('HTTP 400');
    });
  });

  it('--max-errors stops sending and skips the rest', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { openApi: fakeApi() });
      const sent: string[] = [];
      const { exitCode: code } = await runPipeline(
        job(['bad-1', 'bad-2', 'c', 'd'], async (id) => {
          sent.push(id);
          return okResult;
        }),
        { json: true, maxErrors: 2 },
        io.deps,
        targetOnce({}, io.deps),
      );
      const doc = JSON.parse(io.stdout.text);
      expect(sent).toEqual([]);
      expect(doc.summary).toMatchObject({ total: 4, ok: 0, partial: 0, failed: 2, skipped: 2 });
      expect(code).toBe(1);
    });
  });

  it('a TargetError ends the run with the report written and the rest skipped', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { openApi: fakeApi() });
      const run = runPipeline(
        job(['a', 'b', 'c'], async (id) => {
          if (id === 'a') throw new TargetError('403 not allowed to use the external API');
          return okResult;
        }),
        { json: true, concurrency: 1 },
        io.deps,
        targetOnce({}, io.deps),
      );
      await expect(run).rejects.toBeInstanceOf(TargetError);
      const doc = JSON.parse(io.stdout.text);
      expect(doc.items.map((i: { status: string }) => i.status)).toEqual(['skipped', 'skipped', 'skipped']);
      expect(doc.items[0].errors[0].message).toContain('403');
    });
  });

  it('SIGINT: in-flight work finishes, the rest is skipped, InterruptedError after the report', async () => {
    await withTempDir(async (dir) => {
      const controller = new AbortController();
      const io = testDeps(dir, { openApi: fakeApi(), signal: controller.signal });
      const run = runPipeline(
        job(['a', 'b', 'c'], async () => {
          controller.abort();
          return okResult;
        }),
        { json: true },
        io.deps,
        targetOnce({}, io.deps),
      );
      await expect(run).rejects.toBeInstanceOf(InterruptedError);
      const doc = JSON.parse(io.stdout.text);
      expect(doc.items.map((i: { status: string }) => i.status)).toEqual(['ok', 'skipped', 'skipped']);
      expect(doc.error.code).toBe('E1300');
    });
  });

  it('a signal once the last record is in flight: it finishes, the run is complete (exit of its outcomes) and stderr says so', async () => {
    await withTempDir(async (dir) => {
      const controller = new AbortController();
      const io = testDeps(dir, { openApi: fakeApi(), signal: controller.signal });
      let sent = 0;
      const result = await runPipeline(
        job(['a', 'b', 'c'], async () => {
          sent += 1;
          if (sent === 3) controller.abort();
          return okResult;
        }),
        { json: true },
        io.deps,
        targetOnce({}, io.deps),
      );
      expect(result.exitCode).toBe(0);
      expect((JSON.parse(io.stdout.text) as { items: { status: string }[] }).items.map((i) => i.status)).toEqual([
        'ok',
        'ok',
        'ok',
      ]);
      expect(io.stderr.text).toContain(
        'interrupted after every record was sent: all of them finished, so the run is complete (nothing left to resume)',
      );
    });
  });

  it('a dry run interrupted once every record was checked says checked, not sent (a closed pipe after the last record)', async () => {
    await withTempDir(async (dir) => {
      const controller = new AbortController();
      const io = testDeps(dir, { openApi: fakeApi(), signal: controller.signal });
      const base = job(['a', 'b'], async () => okResult);
      const result = await runPipeline(
        {
          ...base,
          async *units(batches) {
            yield* base.units(batches);
            controller.abort();
          },
        },
        { json: true, dryRun: true },
        io.deps,
        targetOnce({}, io.deps),
      );
      expect(result.exitCode).toBe(0);
      expect(io.stderr.text).toContain('interrupted after every record was checked: the dry run is complete');
      expect(io.stderr.text).not.toContain('sent');
    });
  });

  it('a structural input error ends the run before the target is opened', async () => {
    await withTempDir(async (dir) => {
      let opened = false;
      const io = testDeps(dir, {
        openApi: async () => {
          opened = true;
          return null;
        },
      });
      const broken: RecordJob<Payload> = {
        ...job([], async () => okResult),
        async *records() {
          yield { source: { file: 'in.csv', line: 2 }, fields: {} };
          throw new InputFileError('in.csv', 3, 'unterminated quote');
        },
      };
      await expect(runPipeline(broken, { json: true }, io.deps, targetOnce({}, io.deps))).rejects.toThrow(
        'in.csv:3: unterminated quote',
      );
      expect(opened).toBe(false);
      expect(io.stdout.text).toBe('');
    });
  });

  it('partial when the content carries per-entry problems', () => {
    const outcome = outcomeOf(
      {
        status: 200,
        envelope: {
          Content: { GroupErrors: [{ ExternalId: 'H-9', Code: 131, Error: 'Hierarchy not found' }] },
          Success: true,
          Errors: null,
        },
      },
      (content: { GroupErrors: unknown[] }) =>
        content.GroupErrors.map(() => ({ field: 'Hierarchies[0]', code: 131 as const, message: 'nf' })),
    );
    expect(outcome.status).toBe('partial');
    expect(outcome.errors[0]?.code).toBe(131);
  });

  it('returns its outcome: summary, exit code and what the job kept from the answers', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(dir, { openApi: fakeApi() });
      const kept: RecordJob<Payload, string> = {
        ...job(['a', 'bad-b', 'c'], async () => okResult),
        remember: (unit, payload, outcome) => (payload.id === 'c' ? `${unit.id}:${outcome.status}` : undefined),
      };
      const outcome = await runPipeline(kept, {}, io.deps, targetOnce({}, io.deps));
      expect(outcome).toEqual({
        exitCode: 1,
        summary: { total: 3, ok: 2, partial: 0, failed: 1, skipped: 0, actions: { invalid: 1, send: 2 } },
        remembered: ['c:ok'],
      });
    });
  });
});

describe('a job whose units ride on one request (invigilators remove)', () => {
  it('sends one DELETE for the whole list, whatever the window, and reports each id', async () => {
    await withTempDir(async (dir) => {
      const calls: string[][] = [];
      const api = {
        removeInvigilators: async (_schedule: string, ids: string[]) => {
          calls.push(ids);
          await new Promise((resolve) => setTimeout(resolve, 5));
          const removed = ids.filter((id) => id !== 'inv-7');
          return {
            status: 200,
            envelope: {
              Success: true,
              Errors: null,
              Content: {
                SuccessfullyRemoved: removed,
                Errors: [{ UserExtId: 'inv-7', Code: 319, Error: 'not an invigilator' }],
              },
            },
          };
        },
        close: async () => {},
      };
      const ids = Array.from({ length: 600 }, (_, i) => `inv-${i}`);
      const io = testDeps(dir, { openApi: async () => api as never }, { EXAMCTL_TOKEN: 'test-token' });
      const code = await runCli(
        [
          '--target',
          'remote',
          '--base-url',
          'http://127.0.0.1:9',
          '--yes',
          '--concurrency',
          '2',
          '--json',
          'invigilators',
          'remove',
          'S-1',
          ...ids,
        ],
        io.deps,
      );
      expect(code).toBe(1);
      expect(calls).toEqual([ids]);
      const doc = JSON.parse(io.stdout.text);
      expect(doc.items.map((item: { id: string }) => item.id)).toEqual(ids);
      expect(doc.items[7].status).toBe('failed');
      expect(doc.summary).toMatchObject({
        total: 600,
        ok: 599,
        partial: 0,
        failed: 1,
        skipped: 0,
        created: 0,
        updated: 0,
        removed: 599,
      });
    });
  });
});

describe('invigilators remove reads SuccessfullyRemoved (docs/interpretations.md, "Invigilators")', () => {
  it('an id a 200 lists neither as removed nor in Errors fails, unconfirmed; ids compare ignoring case', async () => {
    const contents: unknown[] = [
      { SuccessfullyRemoved: ['INV-1', 'inv-9'], Errors: [] },
      { SuccessfullyRemoved: [], Errors: [{ UserExtId: 'INV-2', Code: 319, Error: 'not an invigilator' }] },
      null,
    ];
    const statuses: string[][] = [];
    for (const content of contents) {
      await withTempDir(async (dir) => {
        const api = {
          removeInvigilators: async () => ({
            status: 200,
            envelope: { Success: true, Errors: null, Content: content },
          }),
          close: async () => {},
        };
        const io = testDeps(dir, { openApi: async () => api as never }, { EXAMCTL_TOKEN: 'test-token' });
        const code = await runCli(
          [
            '--target',
            'remote',
            '--base-url',
            'http://127.0.0.1:9',
            '--yes',
            '--json',
            'invigilators',
            'remove',
            'S-1',
            'inv-1',
            'inv-2',
          ],
          io.deps,
        );
        const items = (
          JSON.parse(io.stdout.text) as { items: { status: string; action?: string; errors: { code: number }[] }[] }
        ).items;
        statuses.push([String(code), ...items.map((item) => `${item.status} ${item.action ?? item.errors[0]!.code}`)]);
      });
    }
    const unconfirmed = 'failed 9027';
    expect(statuses).toEqual([
      ['1', 'ok removed', unconfirmed],
      ['1', unconfirmed, 'failed 319'],
      ['1', unconfirmed, unconfirmed],
    ]);
  });
});

describe('a remote run keeps its request slots busy (issue 37, "Back to the network\'s limit")', () => {
  const remote = (concurrency: number) => ({
    json: true,
    yes: true,
    target: 'remote' as const,
    baseUrl: 'http://127.0.0.1:9',
    concurrency,
  });

  /** A job over `count` records that sends each through `api.upsertUser` and says what happened when. */
  function remoteJob(count: number, events: string[], consumed: { records: number }): RecordJob<Payload, string> {
    return {
      command: 'test run',
      records: records(Array.from({ length: count }, (_, i) => `u${i}`)),
      unitCount: (records: number) => records,
      async *units(batches) {
        for await (const batch of batches) {
          consumed.records += batch.length;
          yield batch.map((record) => ({
            source: record.source,
            id: String(record.fields.id),
            prepared: { ok: true as const, value: { id: String(record.fields.id) } },
          }));
        }
      },
      send: async (api, payload) => {
        events.push(`send ${payload.id}`);
        return outcomeOf(await api.upsertUser(payload as never));
      },
      remember: (unit) => {
        events.push(`handled ${unit.id}`);
        return undefined;
      },
    };
  }

  const answering =
    (answer: (request: Payload) => ApiResult<unknown>): ApiFactory =>
    async () =>
      ({ upsertUser: async (request: Payload) => answer(request), close: async () => {} }) as unknown as IntegrationApi;

  it('sends its first request once a window of records is validated, not a whole batch of them', async () => {
    await withTempDir(async (dir) => {
      const io = testDeps(
        dir,
        { openApi: answering(() => okResult) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const events: string[] = [];
      const consumed = { records: 0 };
      let atFirstSend: number | undefined;
      const job = remoteJob(600, events, consumed);
      const send = job.send;
      job.send = (api, payload, options) => ((atFirstSend ??= consumed.records), send(api, payload, options));
      const { exitCode } = await runPipeline(job, remote(4), io.deps, targetOnce(remote(4), io.deps));
      expect(exitCode).toBe(0);
      expect(JSON.parse(io.stdout.text).summary.ok).toBe(600);
      // The records come in batches of 256; the units are built 4 at a time (the window), and
      // at most a few pieces ahead (the journal's sent-ahead), before the first request goes.
      expect(atFirstSend).toBeGreaterThan(0);
      expect(atFirstSend).toBeLessThan(100);
    });
  });

  it('an answer that cannot stop the run frees its slot before it is handled; a failure only once handled', async () => {
    await withTempDir(async (dir) => {
      const failed: ApiResult<unknown> = {
        status: 400,
        envelope: { Content: null, Success: false, Errors: [{ Code: 806, Message: 'Owner not found' }] },
      };
      const io = testDeps(
        dir,
        { openApi: answering((request) => (request.id === 'u1' ? failed : okResult)) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const events: string[] = [];
      const { exitCode } = await runPipeline(
        remoteJob(4, events, { records: 0 }),
        remote(1),
        io.deps,
        targetOnce(remote(1), io.deps),
      );
      expect(exitCode).toBe(1);
      // One request at a time: u0's ok lets u1 go before u0 is handled; u1's failure is handled
      // before u2 goes (a failure may stop the run: --max-errors).
      expect(events.indexOf('send u1')).toBeLessThan(events.indexOf('handled u0'));
      expect(events.indexOf('handled u1')).toBeLessThan(events.indexOf('send u2'));
      expect(
        JSON.parse(io.stdout.text).items.map((item: { id: string; status: string }) => `${item.id}:${item.status}`),
      ).toEqual(['u0:ok', 'u1:failed', 'u2:ok', 'u3:ok']);
    });
  });

  it('--max-errors: no request goes after the failure that reaches it', async () => {
    await withTempDir(async (dir) => {
      const failed: ApiResult<unknown> = {
        status: 400,
        envelope: { Content: null, Success: false, Errors: [{ Code: 806, Message: 'Owner not found' }] },
      };
      const io = testDeps(
        dir,
        { openApi: answering((request) => (request.id === 'u2' ? failed : okResult)) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const events: string[] = [];
      const { exitCode } = await runPipeline(
        remoteJob(8, events, { records: 0 }),
        { ...remote(1), maxErrors: 1 },
        io.deps,
        targetOnce(remote(1), io.deps),
      );
      expect(exitCode).toBe(1);
      expect(events.filter((event) => event.startsWith('send'))).toEqual(['send u0', 'send u1', 'send u2']);
      expect(JSON.parse(io.stdout.text).summary).toMatchObject({ total: 8, ok: 2, partial: 0, failed: 1, skipped: 5 });
    });
  });
  it('--max-errors with requests in flight: their failures count, and the stop line says so', async () => {
    await withTempDir(async (dir) => {
      const failed: ApiResult<unknown> = {
        status: 400,
        envelope: { Content: null, Success: false, Errors: [{ Code: 806, Message: 'Owner not found' }] },
      };
      const io = testDeps(
        dir,
        { openApi: answering(() => failed) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const events: string[] = [];
      await runPipeline(
        remoteJob(6, events, { records: 0 }),
        { ...remote(2), maxErrors: 1 },
        io.deps,
        targetOnce(remote(2), io.deps),
      );
      // Both windows' requests went before the first failure was handled: both failed.
      expect(events.filter((event) => event.startsWith('send'))).toEqual(['send u0', 'send u1']);
      expect(JSON.parse(io.stdout.text).summary).toMatchObject({ total: 6, ok: 0, partial: 0, failed: 2, skipped: 4 });
      expect(io.stderr.text).toContain(
        'stopped sending at 1 failed (--max-errors), 2 failed in all (requests already in flight finished): the rest was skipped\n',
      );
    });
  });
});

describe('a remote run handles answers once the next requests are written (issue 37, after-writes.ts)', () => {
  const remote = (concurrency: number) => ({
    json: true,
    yes: true,
    target: 'remote' as const,
    baseUrl: 'http://127.0.0.1:9',
    concurrency,
  });
  const ids = (count: number) => Array.from({ length: count }, (_, i) => `u${i}`);

  /**
   * An API that behaves as undici's pool does with a reused connection: a request dispatched is
   * written two check phases later (an immediate frees the connection, another validates it), and
   * answered on the next turn after that. What the run does is logged in order.
   */
  function undiciLike(events: string[], answerOf: (id: string) => ApiResult<unknown> = () => okResult): ApiFactory {
    return async () =>
      ({
        upsertUser: (request: Payload) =>
          new Promise<ApiResult<unknown>>((resolve) => {
            events.push(`dispatch ${request.id}`);
            setImmediate(() =>
              setImmediate(() => {
                events.push(`write ${request.id}`);
                setImmediate(() => resolve(answerOf(request.id)));
              }),
            );
          }),
        close: async () => {},
      }) as unknown as IntegrationApi;
  }

  function loggingJob(count: number, events: string[]): RecordJob<Payload, string> {
    return {
      command: 'test run',
      records: records(ids(count)),
      unitCount: (records: number) => records,
      async *units(batches) {
        for await (const batch of batches)
          yield batch.map((record) => ({
            source: record.source,
            id: String(record.fields.id),
            prepared: { ok: true as const, value: { id: String(record.fields.id) } },
          }));
      },
      send: async (api, payload) => outcomeOf(await api.upsertUser(payload as never)),
      remember: (unit) => {
        events.push(`handled ${unit.id}`);
        return undefined;
      },
    };
  }

  it('the request an ok answer lets go is written before that answer is journaled and reported', async () => {
    await withTempDir(async (dir) => {
      const events: string[] = [];
      const io = testDeps(
        dir,
        { openApi: undiciLike(events) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      // One piece of units (MIN_PIECE, 16): its sent lines are durable before the first request,
      // so only an answer lets a request go, never the completion of a journal fsync (whose turn
      // depends on the disk). Pieces read ahead between answers: the next test.
      const { exitCode } = await runPipeline(
        loggingJob(16, events),
        remote(4),
        io.deps,
        targetOnce(remote(4), io.deps),
      );
      expect(exitCode).toBe(0);
      expect(JSON.parse(io.stdout.text).summary.ok).toBe(16);
      // u(k+4) goes in uk's slot (a window of 4): it is dispatched in uk's answer's turn and on
      // the wire before uk is handled, every time.
      for (let k = 0; k + 4 < 16; k++) {
        const handled = events.indexOf(`handled u${k}`);
        expect(events.indexOf(`dispatch u${k + 4}`), `u${k + 4} dispatched before u${k} handled`).toBeLessThan(handled);
        expect(events.indexOf(`write u${k + 4}`), `u${k + 4} written before u${k} handled`).toBeLessThan(handled);
      }
    });
  });

  it('no request goes out before its unit is on record as sent, in pieces read ahead between answers too', async () => {
    await withTempDir(async (dir) => {
      const runsDir = join(dir, 'runs');
      const unrecorded: string[] = [];
      let requests = 0;
      // At each request (the marker), the journal on disk already holds the unit's sent line.
      const checking: ApiFactory = async () =>
        ({
          upsertUser: async (request: Payload) => {
            requests += 1;
            const [run] = readdirSync(runsDir);
            const journal = readFileSync(join(runsDir, run!, 'journal.ndjson'), 'utf8');
            if (
              !journal.split('\n').some((line) => line.includes('"t":"sent"') && line.includes(`"id":"${request.id}"`))
            )
              unrecorded.push(request.id);
            await new Promise((resolve) => setImmediate(resolve));
            return okResult;
          },
          close: async () => {},
        }) as unknown as IntegrationApi;
      const io = testDeps(dir, { openApi: checking }, { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: runsDir });
      const { exitCode } = await runPipeline(loggingJob(300, []), remote(16), io.deps, targetOnce(remote(16), io.deps));
      expect(exitCode).toBe(0);
      expect(requests).toBe(300);
      expect(unrecorded).toEqual([]);
    });
  });

  it('an input that fails while pieces are read ahead: no unit goes after the failure, and the run ends with it', async () => {
    await withTempDir(async (dir) => {
      const events: string[] = [];
      const io = testDeps(
        dir,
        { openApi: undiciLike(events) },
        { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: join(dir, 'runs') },
      );
      const job = loggingJob(200, events);
      const units = job.units;
      // The structure pass read the file whole; the send pass fails after its first 100 records.
      job.units = async function* (batches) {
        let read = 0;
        for await (const piece of units(batches)) {
          read += piece.length;
          if (read > 100) throw new InputFileError('in.json', 101, 'changed while it was sent');
          yield piece;
        }
      };
      await expect(runPipeline(job, remote(4), io.deps, targetOnce(remote(4), io.deps))).rejects.toThrow(
        'changed while it was sent',
      );
      const sent = events
        .filter((event) => event.startsWith('dispatch '))
        .map((event) => Number(event.slice('dispatch u'.length)));
      expect(sent.length).toBeGreaterThan(0);
      expect(Math.max(...sent)).toBeLessThan(100);
    });
  });
});

describe('the journal starts while the API opens', () => {
  it('an API that cannot be opened leaves no run behind, and its error is the one said', async () => {
    await withTempDir(async (dir) => {
      const runsDir = join(dir, 'runs');
      const refusing: ApiFactory = async () => {
        throw new TargetError('cannot open the target');
      };
      const io = testDeps(dir, { openApi: refusing }, { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: runsDir });
      const options = { json: true, yes: true, target: 'remote' as const, baseUrl: 'http://127.0.0.1:9' };
      await expect(
        runPipeline(
          job(['a', 'b'], async () => okResult),
          options,
          io.deps,
          targetOnce(options, io.deps),
        ),
      ).rejects.toThrow('cannot open the target');
      // The journal may have been started beside the API: it was removed again.
      expect(await readdir(runsDir).catch(() => [])).toEqual([]);
    });
  });
});

describe("a job's ending", () => {
  it('comes before the journal says how the run ended (a kill between them leaves the run unfinished, never a memory that looks cut short)', async () => {
    await withTempDir(async (dir) => {
      const runsDir = join(dir, 'runs');
      const io = testDeps(dir, { openApi: fakeApi() }, { EXAMCTL_TOKEN: 'test-token', EXAMCTL_RUNS_DIR: runsDir });
      const options = { json: true, yes: true, target: 'remote' as const, baseUrl: 'http://127.0.0.1:9' };
      const seen: string[] = [];
      const journalText = () =>
        readdirSync(runsDir)
          .map((id) => readFileSync(join(runsDir, id, 'journal.ndjson'), 'utf8'))
          .join('');
      const ending = {
        ...job(['a', 'b'], async () => okResult),
        ending: async () =>
          void seen.push(journalText().includes('"t":"end"') ? 'after the end line' : 'before the end line'),
      };
      expect((await runPipeline(ending, options, io.deps, targetOnce(options, io.deps))).exitCode).toBe(0);
      expect(seen).toEqual(['before the end line']);
      expect(journalText()).toContain('"t":"end"');
    });
  });
});
