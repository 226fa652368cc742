import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { ROOT } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { memoryFile } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';

/**
 * A candidate dropped from a sittings file (docs/sync.md, "Withdrawn candidates"): an upsert adds
 * and updates candidates but never removes one, and the API cannot withdraw one, so the candidate
 * stays registered. The run that sends the schedule without them says so (a dry run before it
 * too), naming the schedule and the candidates; the night after, with the new list remembered,
 * nothing. Both targets.
 */

const FIXTURE = readFileSync(join(ROOT, 'fixtures', 'sittings.csv'), 'utf8');
const NOTE =
  'not in this file, still registered (an upsert never removes a candidate; withdraw on the platform any that left): stu-2002, stu-2003 (docs/sync.md, "Withdrawn candidates")';
const WITHDRAWN_LINE = `S-MATH1-DEC: ${NOTE}`;

let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-withdrawn-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  writeFileSync(join(dir, 'night1.csv'), FIXTURE);
  writeFileSync(
    join(dir, 'night2.csv'),
    FIXTURE.split('\n')
      .filter((line) => !/,stu-200[23],/.test(line))
      .join('\n'),
  );
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function memoryLines(): string[] {
  const synced = join(dir, 'state', 'synced');
  const [target] = readdirSync(synced);
  return readFileSync(join(synced, target!, 'schedules.ndjson'), 'utf8')
    .trim()
    .split('\n');
}

describe("a schedule entry's candidates in the memory", () => {
  const target = { kind: 'local', store: '/s' } as const;
  const plain = { lock: false, lockTimeoutMs: 0, readOnly: false };

  it('round-trip across opens; a "c" that is not a list of ids is damage naming the file and line, never dropped', async () => {
    const memory = await SyncMemory.open(dir, target, 'schedules', plain);
    memory.record('S-1', { digest: 'd', run: 'r', candidates: ['stu-1', 'stu-2'] });
    memory.record('S-2', { digest: 'd', run: 'r', candidates: [] });
    await memory.close();
    const again = await SyncMemory.open(dir, target, 'schedules', { ...plain, readOnly: true });
    expect(again.entries.get('S-1')?.candidates).toEqual(['stu-1', 'stu-2']);
    expect(again.entries.get('S-2')?.candidates).toBeUndefined();
    await again.close();
    const file = memoryFile(dir, target, 'schedules');
    const header = encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 1, kind: 'schedules', target }));
    writeFileSync(file, header + encodeChecksummedLine(JSON.stringify({ id: 'S-1', d: 'd', r: 'r', c: ['stu-1', 7] })));
    const damaged = await SyncMemory.open(dir, target, 'schedules', { ...plain, readOnly: true });
    expect(() => damaged.entries.get('S-1')).toThrow(
      /schedules\.ndjson:2: sync memory damaged: its candidates are not a list of ids/,
    );
    await damaged.close();
  });
});

describe('withdrawn candidates, local store', () => {
  const push = (file: string, ...flags: string[]) =>
    examctl(
      ['schedule', 'push', '--file', file, '--target', 'local', '--store', 'store', '--upsert', ...flags],
      dir,
      env,
    );

  it('says which candidates stay registered, in the dry run and the run that sends the change, then no more', async () => {
    expect((await push('night1.csv')).code).toBe(0);
    const plan = await push('night2.csv', '--changed-only', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain(WITHDRAWN_LINE);

    const second = await push('night2.csv', '--changed-only', '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(WITHDRAWN_LINE);
    // What the line says is what the target holds: stu-2002 keeps its startup link.
    const links = await examctl(
      ['schedule', 'links', 'S-MATH1-DEC', '--target', 'local', '--store', 'store', '--json'],
      dir,
      env,
    );
    expect(links.stdout).toContain('stu-2002');
    // With --json, stdout is still the one report; the schedule's item says it too, and so does runs show.
    const note = NOTE;
    const itemOf = (stdout: string) =>
      (JSON.parse(stdout) as { items: { id: string; note?: string; action?: string }[] }).items.find(
        (item) => item.id === 'S-MATH1-DEC',
      );
    expect(itemOf(second.stdout)?.note).toBe(note);
    expect(itemOf((await examctl(['runs', 'show', 'last', '--json'], dir, env)).stdout)?.note).toBe(note);
    // The engine found nothing to change in it (the candidates stay): sent all the same, so only
    // S-PHYS2-JAN counts as not sent.
    expect(itemOf(second.stdout)?.action).toBe('unchanged');
    expect(lineWith(second.stderr, '1 unchanged (not sent)', '1 with candidates left registered')).toBeTruthy();

    // Remembered: the next night (full or --changed-only) says nothing.
    for (const flags of [['--changed-only'], []]) {
      const next = await push('night2.csv', ...flags);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toContain('not in this file');
    }
    // Back in the file (night 1's very file: meant, docs/sync.md "Stale input"): nothing said, and listed again in the memory.
    const back = await push('night1.csv', '--changed-only', '--allow-old-file');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).not.toContain('not in this file');
    expect(
      memoryLines().findLast((line) => line.includes('"id":"S-MATH1-DEC","d":"') && !line.includes('"d":""')),
    ).toContain('"stu-2002"');
  });

  it('a memory written before candidates were kept says nothing, and the run starts keeping them', async () => {
    expect((await push('night1.csv')).code).toBe(0);
    // Entry lines as an earlier examctl wrote them: no "c".
    const synced = join(dir, 'state', 'synced');
    const file = join(synced, readdirSync(synced)[0]!, 'schedules.ndjson');
    const { decodeChecksummedLine, encodeChecksummedLine } = await import('../../src/system/checksummed-line.js');
    const older = memoryLines().map((line, i) => {
      if (i === 0) return line;
      const decoded = decodeChecksummedLine(Buffer.from(line));
      if (!decoded.ok) throw new Error(line);
      const { c: _c, ...body } = decoded.body as Record<string, unknown>;
      return encodeChecksummedLine(JSON.stringify(body)).trimEnd();
    });
    writeFileSync(file, `${older.join('\n')}\n`);
    expect(readFileSync(file, 'utf8')).not.toContain('"c":');
    const second = await push('night2.csv', '--changed-only');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('not in this file');
    expect(memoryLines().some((line) => line.includes('"c":["stu-2001","stu-2004"'))).toBe(true);
  });
});

describe('withdrawn candidates, remote', () => {
  let server: FaultServer;
  const sent: string[][] = [];
  let refuse = false;

  beforeEach(async () => {
    sent.length = 0;
    refuse = false;
    server = await startFaultServer();
    server.fallback = (request) => {
      const body = JSON.parse(request.body) as {
        Schedule: { ScheduleExtId: string };
        Candidates: { CandidateExtId: string }[];
      };
      sent.push(body.Candidates.map((candidate) => candidate.CandidateExtId));
      if (refuse)
        return {
          status: 400,
          body: { Content: null, Success: false, Errors: [{ Code: null, Message: 'Bad request' }] },
        };
      return okEnvelope(body.Schedule.ScheduleExtId);
    };
  });

  afterEach(async () => {
    await server.close();
  });

  const push = (file: string, ...flags: string[]) =>
    examctl(
      [
        'schedule',
        'push',
        '--file',
        file,
        '--target',
        'remote',
        '--base-url',
        server.url,
        '--allow-insecure-http',
        '--yes',
        '--upsert',
        ...flags,
      ],
      dir,
      env,
    );

  it('a refused request leaves the memory as it was: the next night says it again', async () => {
    const first = await push('night1.csv');
    expect(first.code, first.stderr).toBe(0);
    refuse = true;
    const refused = await push('night2.csv', '--changed-only');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(WITHDRAWN_LINE);
    refuse = false;
    sent.length = 0;
    const again = await push('night2.csv', '--changed-only');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(WITHDRAWN_LINE);
    // The changed schedule went, without them; the other one was unchanged.
    expect(sent).toEqual([['stu-2001', 'stu-2004', 'stu-2005', 'stu-2006']]);
    expect((await push('night2.csv', '--changed-only')).stderr).not.toContain('not in this file');
  });

  it("a dry run's report and plan carry the note the run that applies it gives (the service is not asked)", async () => {
    expect((await push('night1.csv')).code).toBe(0);
    sent.length = 0;
    const dry = await push('night2.csv', '--changed-only', '--dry-run', '--json', '--plan-out', 'night2.plan.json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(sent).toEqual([]);
    // Its plan line says why, as an update's does.
    expect(dry.stderr).toContain(`> S-MATH1-DEC: ${NOTE}`);
    const noteOf = (items: { id: string; note?: string }[]) => items.find((item) => item.id === 'S-MATH1-DEC')?.note;
    expect(noteOf((JSON.parse(dry.stdout) as { items: { id: string; note?: string }[] }).items)).toBe(NOTE);
    const plan = JSON.parse(readFileSync(join(dir, 'night2.plan.json'), 'utf8')) as { items: { id: string }[] };
    expect(noteOf(plan.items)).toBe(NOTE);
    const applied = await examctl(['apply', 'night2.plan.json', '--json', '--allow-insecure-http'], dir, env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(noteOf((JSON.parse(applied.stdout) as { items: { id: string; note?: string }[] }).items)).toBe(NOTE);
  });
});
