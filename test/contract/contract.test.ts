import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/context/command-deps.js';
import { runCli } from '../../src/cli/run-cli.js';
import { clockFromEnv } from '../../src/engine/index.js';
import { StringSink } from '../support/string-sink.js';
import { serveLocalStore } from '../../src/server/index.js';
import type { FieldChange } from '../../src/report/run-report.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { runScenario, SCENARIO_NOW, writeScenarioFiles, type CliRunner, type StepResult } from './scenario.js';

/**
 * One scenario, two targets: the local engine in-process, and the remote client against
 * `local serve` over loopback, each on a fresh store seeded from fixtures/world.json with the
 * same pinned clock. The masked run reports must be identical.
 */

function runner(dir: string, targetArgs: string[], env: Record<string, string>): CliRunner {
  return async (argv) => {
    const stdout = new StringSink();
    const stderr = new StringSink();
    const deps: CommandDeps = {
      stdout,
      stderr,
      env: { EXAMCTL_NOW: SCENARIO_NOW, EXAMCTL_CONFIG_DIR: join(dir, '.config'), ...env },
      now: () => new Date(SCENARIO_NOW),
      isTTY: false,
      cwd: dir,
    };
    const code = await runCli([...targetArgs, ...argv], deps);
    return { code, stdout: stdout.text, stderr: stderr.text };
  };
}

let dir: string;
let server: LocalServer;
let local: StepResult[];
let remote: StepResult[];
const serverLog: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-contract-'));
  await writeScenarioFiles(dir);
  // Both stores are created from the bundled demo world (fixtures/world.json) on first use.
  local = await runScenario(runner(dir, ['--target', 'local', '--store', join(dir, 'local-store')], {}), dir);
  server = await serveLocalStore({
    storeDir: join(dir, 'served-store'),
    port: 0,
    now: clockFromEnv({ EXAMCTL_NOW: SCENARIO_NOW }),
    log: (line) => serverLog.push(line),
  });
  remote = await runScenario(
    runner(dir, ['--target', 'remote', '--base-url', server.url, '--yes'], { EXAMCTL_TOKEN: 'dev-token' }),
    dir,
  );
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A run's document without each item's `changes`: what the two targets know of the old values differs by design. */
function withoutChanges(document: unknown): unknown {
  const items = (document as { items?: Record<string, unknown>[] } | undefined)?.items;
  if (items === undefined) return document;
  return { ...(document as object), items: items.map(({ changes: _changes, ...item }) => item) };
}

type Item = { id: string | null; status: string; errors: Array<{ code: number | null; message: string }> };
const itemsOf = (result: StepResult | undefined): Item[] => (result?.document as { items: Item[] }).items;
const codesOf = (item: Item | undefined): Array<number | null> => item?.errors.map((e) => e.code) ?? [];

describe('contract: local engine vs remote client through local serve', () => {
  it('every step gives the same exit code and the same masked document', () => {
    expect(remote.map((r) => r.step)).toEqual(local.map((r) => r.step));
    for (let i = 0; i < local.length; i += 1) {
      expect({ step: remote[i]!.step, code: remote[i]!.code, document: withoutChanges(remote[i]!.document) }).toEqual({
        step: local[i]!.step,
        code: local[i]!.code,
        document: withoutChanges(local[i]!.document),
      });
    }
  });

  // Before and after (docs/plan.md): the local target knows the old values from its store, a remote
  // one only what examctl last sent. What the remote says it knows agrees with the store's record.
  it('each change the remote run names is the same as the local run names, field for field', () => {
    const changesOf = (result: StepResult) =>
      ((result.document as { items?: { id: string | null; changes?: FieldChange[] }[] } | undefined)?.items ?? [])
        .filter((item) => item.changes !== undefined)
        .map((item) => [item.id, item.changes!] as const);
    const localChanges = local.flatMap(changesOf);
    expect(localChanges).toContainEqual([
      'c-1001',
      [{ field: 'FirstName', known: true, before: 'Ada', after: 'Adaline' }],
    ]);
    for (const [id, changes] of remote.flatMap(changesOf)) {
      const known = new Map(localChanges.find(([other]) => other === id)?.[1].map((change) => [change.field, change]));
      for (const change of changes.filter((each) => each.known)) expect(change).toEqual(known.get(change.field));
    }
  });

  it('the remote run really went over HTTP with the token accepted (no 403 in the server log)', () => {
    expect(serverLog.some((line) => line.startsWith('POST /api/v1/integrations/user 200'))).toBe(true);
    expect(
      serverLog.some((line) => line.startsWith('DELETE /api/v1/integrations/schedule/S-FUTURE/invigilators')),
    ).toBe(true);
    expect(serverLog.filter((line) => / 403 /.test(line))).toEqual([]);
    expect(serverLog.join('\n')).not.toContain('dev-token');
  });

  // The scenario is only a contract if it exercises what it claims: pin the expected outcomes.
  it('schedule push: new, generated id, duplicate, span rule, inactive hierarchy, EXTERNAL_ATTEMPTS', () => {
    const [first, upsert, again] = local;
    expect(first!.code).toBe(1);
    const items = itemsOf(first);
    expect(items.map((i) => i.status)).toEqual([
      'ok',
      'ok',
      'failed',
      'failed',
      'failed',
      'failed',
      'ok',
      'failed',
      'failed',
    ]);
    expect(items[1]!.id).toBe('<generated>');
    expect(items[2]!.errors.map((e) => e.message).join(' ')).toMatch(/duplicate scheduleextid/i);
    expect(items[3]!.errors.map((e) => e.message).join(' ')).toMatch(/90/);
    expect(items[4]!.errors.map((e) => e.message).join(' ')).toMatch(/inactive|not active/i);
    expect(items[5]!.errors.map((e) => e.message).join(' ')).toMatch(/inactive|not active/i);
    expect(items[7]!.errors.map((e) => e.message).join(' ')).toMatch(/AttemptExtId/);
    expect(itemsOf(upsert).map((i) => i.status)).toEqual(['ok', 'failed', 'ok']);
    expect(
      itemsOf(upsert)[1]!
        .errors.map((e) => e.message)
        .join(' '),
    ).toMatch(/activated|started/i);
    expect(itemsOf(again).map((i) => i.status)).toEqual(['failed', 'failed', 'failed']);
  });

  it('user sync: create, update, 214, 233, GroupErrors 131/133/1134 partial, 209, 241', () => {
    const step = local[3]!;
    expect(step.code).toBe(1);
    const items = itemsOf(step);
    expect(items.map((i) => i.status)).toEqual(['ok', 'ok', 'failed', 'failed', 'partial', 'failed', 'failed']);
    expect(codesOf(items[2])).toContain(214);
    expect(codesOf(items[3])).toContain(233);
    expect([...codesOf(items[4])].sort((a, b) => Number(a) - Number(b))).toEqual([131, 133, 1134]);
    expect(codesOf(items[5])).toContain(209);
    expect(codesOf(items[6])).toContain(241);
  });

  it('collection add: ok, generated id, 806, 808, 810, 900, 1000-1003', () => {
    const items = itemsOf(local[4]);
    expect(items.map((i) => i.status)).toEqual(['ok', 'ok', ...Array(8).fill('failed')]);
    expect(items[1]!.id).toBe('<generated>');
    expect(items.slice(2).map((i) => codesOf(i)[0])).toEqual([806, 808, 810, 900, 1000, 1001, 1002, 1003]);
  });

  it('invigilators remove: ok + 319 failed, 301, 302, 305', () => {
    const [partial, notFound, archived, finished] = local.slice(5, 9);
    expect(itemsOf(partial).map((i) => i.status)).toEqual(['ok', 'failed']);
    expect(codesOf(itemsOf(partial)[1])).toContain(319);
    expect(codesOf(itemsOf(notFound)[0])).toContain(301);
    expect(codesOf(itemsOf(archived)[0])).toContain(302);
    expect(codesOf(itemsOf(finished)[0])).toContain(305);
  });

  it('review-session show: the session, then 1101', () => {
    const [found, missing] = local.slice(9);
    expect(found!.code).toBe(0);
    expect((found!.document as { ExternalId: string }).ExternalId).toBe('RS-MATH1-OCT');
    expect(missing!.code).toBe(1);
    expect((missing!.document as { errors: Array<{ code: number }> }).errors[0]!.code).toBe(1101);
  });
});

describe('contract: the stores end in the same state', () => {
  it('local export of both stores is identical once generated ids and link tokens are masked', async () => {
    const exportOf = async (store: string): Promise<string> => {
      const run = runner(dir, ['--target', 'local', '--store', store], {});
      const { code, stdout } = await run(['local', 'export']);
      expect(code).toBe(0);
      return stdout;
    };
    const scrub = (text: string): string =>
      text
        .replace(/S-[0-9A-F]{20}/g, '<schedule-id>')
        .replace(/session=[A-Za-z0-9_-]+/g, 'session=<token>')
        .replace(/launch\?t=[A-Za-z0-9_-]+/g, 'launch?t=<token>')
        .replace(/"ExternalId": "[a-z0-9]{16}"/g, '"ExternalId": "<collection-id>"')
        // A schedule pushed without an id: examctl names it per run (docs/runs.md, "An id examctl chooses").
        .replace(/"ScheduleExtId": "[a-z0-9]{16}"/g, '"ScheduleExtId": "<schedule-id>"');
    // Generated ids sort differently in each store: compare each list as a sorted set.
    const normalise = (text: string): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(JSON.parse(scrub(text)) as Record<string, unknown>).map(([key, value]) => [
          key,
          Array.isArray(value) ? value.map((entry) => JSON.stringify(entry)).sort() : value,
        ]),
      );
    const [a, b] = [await exportOf(join(dir, 'local-store')), await exportOf(join(dir, 'served-store'))];
    expect(a).toContain('u-new-3');
    expect(normalise(b)).toEqual(normalise(a));
  });
});
