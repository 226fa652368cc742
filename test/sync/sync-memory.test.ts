import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TargetError, UsageError } from '../../src/system/errors.js';
import { thresholdOf } from '../../src/sync/user-sync-memory.js';
import { canonicalJson, requestDigest, SYNC_MEMORY_VERSION } from '../../src/sync/memory-lines.js';
import { memoryFile } from '../../src/sync/memory-files.js';
import { SyncMemory } from '../../src/sync/sync-memory.js';
import { memoryPlaceOf } from '../../src/context/target.js';

let dir: string;
const target = { kind: 'remote', baseUrl: 'https://exam.example.test/' } as const;
const plain = { lock: false, lockTimeoutMs: 0, readOnly: false };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-memory-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the request digest', () => {
  it('is the same for the same request whatever the key order, and differs for any change', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null } })).toBe('{"a":{"c":null,"d":[1,"x"]},"b":1}');
    expect(requestDigest({ ExternalId: 'u1', LastName: 'A' })).toBe(requestDigest({ LastName: 'A', ExternalId: 'u1' }));
    expect(requestDigest({ ExternalId: 'u1', LastName: 'A' })).not.toBe(
      requestDigest({ ExternalId: 'u1', LastName: 'B' }),
    );
    expect(requestDigest({ ExternalId: 'u1', Password: 'one' })).not.toBe(
      requestDigest({ ExternalId: 'u1', Password: 'two' }),
    );
  });
});

/** The canonical text as examctl always wrote it (a sorted deep copy): the digest of every memory on disk. */
function referenceCanonical(value: unknown): string {
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((item: unknown) => (item === undefined ? null : copy(item)));
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort())
      if ((v as Record<string, unknown>)[key] !== undefined) out[key] = copy((v as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(copy(value)) ?? 'null';
}

const pick = (entry: { digest: string; run: string; disabled?: boolean } | undefined) =>
  entry === undefined
    ? undefined
    : { digest: entry.digest, run: entry.run, ...(entry.disabled === true ? { disabled: true } : {}) };

describe('the canonical text, built faster, is the text memories were written with', () => {
  it('same bytes as the sorted deep copy for requests of changing shapes, nested lists, undefined and null', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const names = [
      'ExternalId',
      'LastName',
      'FirstName',
      'Email',
      'Role',
      'Labels',
      'Hierarchies',
      'SpecialNeeds',
      'Password',
      'Zeta',
      'alpha',
      'Ünicode',
    ];
    const scalar = (): unknown =>
      [
        () => 'x' + Math.floor(next() * 100),
        () => Math.floor(next() * 1000) / 7,
        () => next() < 0.5,
        () => null,
        () => undefined,
      ][Math.floor(next() * 5)]!();
    const value = (depth: number): unknown => {
      const kind = next();
      if (depth > 2 || kind < 0.5) return scalar();
      if (kind < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (const name of names) if (next() < 0.4) object[name] = value(depth + 1);
      return object;
    };
    for (let i = 0; i < 3_000; i++) {
      const request = value(0);
      expect(canonicalJson(request)).toBe(referenceCanonical(request));
      // The same shape again with other values, then keys in another order: the shape cache must not mix them up.
      if (request !== null && typeof request === 'object' && !Array.isArray(request)) {
        const reversed = Object.fromEntries(Object.entries(request).reverse());
        expect(canonicalJson(reversed)).toBe(referenceCanonical(request));
      }
    }
    const user = {
      ExternalId: 'u1',
      LastName: 'A',
      FirstName: 'B',
      Email: 'e',
      Role: 'Candidate',
      Labels: ['a', undefined, 'b'],
      Hierarchies: [{ IsCoordinator: true, ExternalId: 'H-A' }],
    };
    expect(canonicalJson(user)).toBe(referenceCanonical(user));
    expect(canonicalJson({ ...user, LastName: 'C' })).toBe(referenceCanonical({ ...user, LastName: 'C' }));
  });
});

describe('the --max-disable threshold', () => {
  it('defaults to 10 % of the remembered users, or up to 100 but never over 25 %; takes N or P% (rounded up)', () => {
    expect(thresholdOf('--max-disable', undefined, 500).limit).toBe(100);
    expect(thresholdOf('--max-disable', undefined, 400).limit).toBe(100);
    expect(thresholdOf('--max-disable', undefined, 20_000).limit).toBe(2_000);
    // A small population: an empty export (all 40 missing) is refused, a quarter is not.
    expect(thresholdOf('--max-disable', undefined, 40).limit).toBe(10);
    expect(thresholdOf('--max-disable', undefined, 3).limit).toBe(1);
    expect(thresholdOf('--max-disable', undefined, 0).limit).toBe(0);
    expect(thresholdOf('--max-disable', '7', 20_000).limit).toBe(7);
    expect(thresholdOf('--max-disable', '2%', 20_000).limit).toBe(400);
    // docs/ci.md's 2 % in a population of 41 lets one leaver go (0.82, rounded up), not none.
    expect(thresholdOf('--max-disable', '2%', 41).limit).toBe(1);
    expect(thresholdOf('--max-disable', '0%', 41).limit).toBe(0);
    expect(thresholdOf('--max-disable', '10%', 50).limit).toBe(5);
    expect(() => thresholdOf('--max-disable', 'lots', 10)).toThrow(UsageError);
    expect(() => thresholdOf('--max-disable', '150%', 10)).toThrow(UsageError);
  });
});

describe('the sync memory file', () => {
  it('lives beside the runs directory unless told otherwise', () => {
    const dir = (flag: string | undefined, env: Record<string, string>) =>
      memoryPlaceOf(flag, '/state/examctl/runs', { env, cwd: '/' });
    expect(dir(undefined, {})).toEqual({ kind: 'dir', syncDir: '/state/examctl/synced', from: 'built-in' });
    expect(dir(undefined, { EXAMCTL_SYNC_DIR: '/x' })).toEqual({
      kind: 'dir',
      syncDir: '/x',
      from: 'EXAMCTL_SYNC_DIR',
    });
    expect(dir('/flag', { EXAMCTL_SYNC_DIR: '/x' })).toEqual({ kind: 'dir', syncDir: '/flag', from: '--sync-dir' });
  });

  it('remembers across opens (0600), the last line of an id winning; a torn last line is cut off', async () => {
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    memory.record('u1', { digest: 'd1', run: 'r1', firstName: 'A', lastName: 'B' });
    memory.record('u1', { digest: 'd2', run: 'r2', firstName: 'A', lastName: 'C' });
    memory.record('u2', { digest: 'd3', run: 'r2', disabled: true });
    await memory.close();
    const file = memoryFile(dir, target, 'users');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, readFileSync(file, 'utf8') + '{"crc":"0000');
    const again = await SyncMemory.open(dir, target, 'users', plain);
    expect(again.entries.get('u1')).toEqual({ digest: 'd2', run: 'r2', firstName: 'A', lastName: 'C' });
    expect(again.entries.get('u2')).toEqual({ digest: 'd3', run: 'r2', disabled: true });
    expect([...again.entries.values()].filter((entry) => entry.disabled !== true)).toHaveLength(1);
    again.record('u3', { digest: 'd4', run: 'r3' });
    await again.close();
    const third = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(third.entries.get('u3')?.digest).toBe('d4');
  });

  it('indexed at open, parsed when asked: every id found (escapes, non-ASCII, thousands), a bad checksum refused at open, compaction keeps every entry', async () => {
    const ids = [
      'quote"d',
      'back\\slash',
      'Zoë-ümlaut',
      'SCH:MATH',
      ...Array.from({ length: 5_000 }, (_, i) => `stu-${i}`),
    ];
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    for (const [i, id] of ids.entries())
      memory.record(id, { digest: `d${i}`, run: 'r1', ...(i % 2 === 0 ? { links: [['H-A', ['coordinator']]] } : {}) });
    // A later line of the same id wins.
    memory.record('stu-7', { digest: 'later', run: 'r2' });
    // A name holding what looks like the disabled flag, and a leaver.
    memory.record('evil', { digest: 'e', run: 'r2', firstName: 'Evil,"x":true', lastName: ',"x":true,' });
    memory.record('leaver', { digest: 'l', run: 'r2', firstName: 'L', disabled: true, links: [['H-A', []]] });
    await memory.close();
    const again = await SyncMemory.open(dir, target, 'users', plain);
    expect(again.entries.size).toBe(ids.length + 2);
    for (const [i, id] of ids.entries()) expect(again.entries.get(id)?.digest).toBe(id === 'stu-7' ? 'later' : `d${i}`);
    // What --changed-only compares, read off the line without parsing: the same as the parsed entry.
    for (const id of ['quote"d', 'back\\slash', 'Zoë-ümlaut', 'stu-7', 'stu-4999', 'evil', 'leaver'])
      expect(pick(again.entries.peek(id))).toEqual(pick(again.entries.get(id)));
    expect(again.entries.peek('evil')?.disabled).toBeUndefined();
    expect(again.entries.peek('leaver')?.disabled).toBe(true);
    expect(again.entries.peek('nobody')).toBeUndefined();
    expect(again.entries.get('stu-')).toBeUndefined();
    expect(again.entries.get('stu-50000')).toBeUndefined();
    again.record('new-one', { digest: 'n', run: 'r3' });
    expect(again.entries.size).toBe(ids.length + 3);
    expect(new Set([...again.entries].map(([id]) => id))).toEqual(new Set([...ids, 'evil', 'leaver', 'new-one']));
    await again.close();
    // A line whose checksum fails is damage at open, whatever the run will ask for.
    const file = memoryFile(dir, target, 'users');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"id":"stu-4000","d":"d4004"', '"id":"stu-4000","d":"d4005"'));
    await expect(SyncMemory.open(dir, target, 'users', plain)).rejects.toThrow(
      /sync memory damaged: checksum mismatch/,
    );
    writeFileSync(file, text);
    // Compacted under the lock (more than 1.5 lines per id plus 10,000), lines not parsed copied as read.
    const feeder = await SyncMemory.open(dir, target, 'users', plain);
    for (let i = 0; i < 14_000; i++) feeder.record(`stu-${i % 10}`, { digest: `again${i}`, run: 'r4' });
    await feeder.close();
    const locked = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 1_000, readOnly: false });
    await locked.close();
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(ids.length + 4);
    const compacted = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    for (const [i, id] of ids.entries())
      expect(compacted.entries.get(id)?.digest).toBe(
        /^stu-\d$/.test(id) ? `again${13_990 + Number(id.slice(4))}` : id === 'stu-7' ? 'later' : `d${i}`,
      );
    expect(compacted.entries.get('quote"d')?.links).toEqual([['H-A', ['coordinator']]]);
    expect(compacted.entries.get('new-one')?.digest).toBe('n');
  });

  it('a FIFO planted as the memory file is refused (exit 2) at once, never waited on', async () => {
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    await memory.close();
    const file = memoryFile(dir, target, 'users');
    rmSync(file);
    execFileSync('mkfifo', [file]);
    await expect(SyncMemory.open(dir, target, 'users', plain)).rejects.toThrow(/is a FIFO, not a regular file/);
    await expect(SyncMemory.open(dir, target, 'users', plain)).rejects.toBeInstanceOf(UsageError);
  });

  it('a memory file that can be read but not written is exit 3 "cannot write", not "cannot read" (exit 2)', async (context) => {
    await (await SyncMemory.open(dir, target, 'users', plain)).close();
    const file = memoryFile(dir, target, 'users');
    // Root writes a 0400 file anyway: make it immutable instead, where chattr and the file system allow.
    const root = process.getuid?.() === 0;
    if (!root) chmodSync(file, 0o400);
    else if (spawnSync('chattr', ['+i', file]).status !== 0) context.skip();
    try {
      const refused = await SyncMemory.open(dir, target, 'users', plain).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(TargetError);
      expect(refused).toMatchObject({ code: 'E3050', message: expect.stringContaining(file) });
      expect((refused as Error).message).toMatch(/\((EACCES|EPERM)\)$/);
      expect((await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true })).entries.size).toBe(0);
    } finally {
      if (root) spawnSync('chattr', ['-i', file]);
    }
  });

  it('an older format: a feeder appends in it; a run holding the lock rewrites it and then writes as this format', async () => {
    await (await SyncMemory.open(dir, target, 'users', plain)).close();
    const file = memoryFile(dir, target, 'users');
    const { encodeChecksummedLine } = await import('../../src/system/checksummed-line.js');
    writeFileSync(file, encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 3, kind: 'users', target })));
    const feeder = await SyncMemory.open(dir, target, 'users', plain);
    expect(feeder.current).toBe(false);
    await feeder.close();
    const deciding = await SyncMemory.open(dir, target, 'users', { ...plain, lock: true });
    // Rewritten in this format at its open: its batches' heads are recorded from its first (sent-memory.ts, ackTag).
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!).b.v).toBe(SYNC_MEMORY_VERSION);
    expect(deciding.current).toBe(true);
    await deciding.close();
  });

  it('a newer format is refused (exit 2), never read as empty', async () => {
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    await memory.close();
    const file = memoryFile(dir, target, 'users');
    const { encodeChecksummedLine } = await import('../../src/system/checksummed-line.js');
    writeFileSync(file, encodeChecksummedLine(JSON.stringify({ t: 'sync-memory', v: 99, kind: 'users', target })));
    await expect(SyncMemory.open(dir, target, 'users', plain)).rejects.toThrow(/newer than this examctl reads/);
  });

  it('a run that decides from it compacts it to one line per id', async () => {
    // Another run feeding meanwhile: the first cannot compact at its end (it never waits for that).
    const other = await SyncMemory.open(dir, target, 'users', plain);
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    for (let i = 0; i < 12_000; i++) memory.record(`u${i % 3}`, { digest: `d${i}`, run: 'r1' });
    await memory.close();
    await other.close();
    const file = memoryFile(dir, target, 'users');
    expect(readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(12_000);
    const locked = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 1_000, readOnly: false });
    expect(locked.entries.get('u2')?.digest).toBe('d11999');
    locked.record('u9', { digest: 'x', run: 'r2' });
    await locked.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const reread = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(reread.entries.size).toBe(4);
  });

  it('two runs that decide from one memory never hold it at once: the second waits, then refuses', async () => {
    const first = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 1_000, readOnly: false });
    await expect(
      SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false }),
    ).rejects.toThrow(/sync memory .* is locked by pid/);
    await first.close();
    const second = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
    await second.close();
  });

  it('a run that feeds it and a run that decides from it never overlap: each waits for the other, then refuses (exit 3)', async () => {
    const feeder = await SyncMemory.open(dir, target, 'users', plain);
    // Feeders never wait for each other.
    const another = await SyncMemory.open(dir, target, 'users', plain);
    await another.close();
    const refused = SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 50, readOnly: false });
    await expect(refused).rejects.toThrow(/another run is feeding this memory: wait for it to end .*pid \d+/);
    await expect(refused).rejects.toMatchObject({ exitCode: 3 });
    await feeder.close();
    const decider = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
    await expect(SyncMemory.open(dir, target, 'users', { ...plain, lockTimeoutMs: 50 })).rejects.toThrow(
      /is locked by pid \d+ .*a run that decides from it/,
    );
    await decider.close();
    const after = await SyncMemory.open(dir, target, 'users', plain);
    await after.close();
  });

  it('a deciding run waits while a run feeds, says so once, and goes on when the feeder ends', async () => {
    const feeder = await SyncMemory.open(dir, target, 'users', plain);
    feeder.record('u1', { digest: 'd1', run: 'feeding-run' });
    const told: string[] = [];
    let waiting!: () => void;
    const waits = new Promise<void>((resolve) => (waiting = resolve));
    const decider = SyncMemory.open(dir, target, 'users', {
      lock: true,
      lockTimeoutMs: 60_000,
      readOnly: false,
      onWait: (message) => {
        told.push(message);
        waiting();
      },
    });
    await waits;
    await feeder.close();
    const opened = await decider;
    // It read the memory only once the feeder's last line was on disk.
    expect(opened.entries.get('u1')?.run).toBe('feeding-run');
    await opened.close();
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^waiting for pid \d+ .*feeding the sync memory/);
  });

  it('a feeding marker left by a killed run is removed by the next deciding run', async () => {
    const memoryDir = dirname(memoryFile(dir, target, 'users'));
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    mkdirSync(memoryDir, { recursive: true });
    const stale = join(memoryDir, `feeding-${gone}-dead`);
    writeFileSync(
      stale,
      JSON.stringify({
        pid: gone,
        host: hostname(),
        token: `${gone}-dead`,
        command: 'examctl user sync',
        since: 'then',
      }),
      { mode: 0o600 },
    );
    const decider = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
    await decider.close();
    expect(existsSync(stale)).toBe(false);
  });
});

describe('feeders that open a memory no one made yet, at once', () => {
  it('find it made with its one header: each keeps its lines, none cut off, no second header', async () => {
    const feeders = await Promise.all(Array.from({ length: 6 }, () => SyncMemory.open(dir, target, 'users', plain)));
    for (const [k, memory] of feeders.entries()) memory.record(`u-${k}`, { digest: `d${k}`, run: 'R1' });
    for (const memory of feeders) await memory.close();
    const lines = readFileSync(memoryFile(dir, target, 'users'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.filter((line) => line.includes('"t":"sync-memory"'))).toHaveLength(1);
    const read = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(Array.from({ length: 6 }, (_, k) => read.entries.get(`u-${k}`)?.digest)).toEqual([
      'd0',
      'd1',
      'd2',
      'd3',
      'd4',
      'd5',
    ]);
    await read.close();
    // No temporary file is left beside it.
    expect(readdirSync(dirname(memoryFile(dir, target, 'users'))).filter((name) => name.endsWith('.new'))).toEqual([]);
  });
});

describe('compaction by full runs (issue 37)', () => {
  it('runs that only feed the memory (no --changed-only) leave it at about one line per id, not one per id per night', async () => {
    const ids = 25_000;
    const file = memoryFile(dir, target, 'users');
    const sizes: number[] = [];
    const lines: number[] = [];
    for (let night = 1; night <= 3; night += 1) {
      const memory = await SyncMemory.open(dir, target, 'users', plain);
      for (let i = 0; i < ids; i += 1) memory.record(`u-${i}`, { digest: `d-${night}-${i}`, run: `run-${night}` });
      await memory.close();
      sizes.push(statSync(file).size);
      lines.push(readFileSync(file, 'utf8').split('\n').length - 1);
    }
    // Each night appends every id; the night that passes 1.5 lines per id (+ slack) rewrites it.
    expect(Math.max(...lines)).toBeLessThanOrEqual(ids * 1.5 + 10_001);
    expect(sizes[2]).toBeLessThan(sizes[0]! * 1.6);
    const last = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(last.entries.size).toBe(ids);
    expect(last.entries.get('u-7')).toEqual({ digest: 'd-3-7', run: 'run-3' });
    await last.close();
  });
});

describe('population records: start and end marks, the newest run, a compacted file', () => {
  it("keeps the newest run's record, not the last line: a feeder that started first and ended last does not make the memory older than the other", async () => {
    const older = await SyncMemory.open(dir, target, 'users', plain);
    older.recordPopulation('', '20261120T010000.000Z-aaaa');
    const newer = await SyncMemory.open(dir, target, 'users', plain);
    newer.recordPopulation('', '20261120T020000.000Z-bbbb');
    newer.record('u-1', { digest: 'd1', run: '20261120T020000.000Z-bbbb' });
    newer.recordPopulation('', '20261120T020000.000Z-bbbb', true);
    await newer.close();
    older.recordPopulation('', '20261120T010000.000Z-aaaa', true);
    await older.close();
    const lines = readFileSync(memoryFile(dir, target, 'users'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.at(-1)).toContain('"r":"20261120T010000.000Z-aaaa"');
    const read = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(read.populations().get('')).toMatchObject({ run: '20261120T020000.000Z-bbbb', ended: true });
    await read.close();
  });

  it('marks a start false and an end true; a compacted file writes the population lines after its entries', async () => {
    const memory = await SyncMemory.open(dir, target, 'users', { lock: true, lockTimeoutMs: 0, readOnly: false });
    memory.recordPopulation('', '20261120T010000.000Z-aaaa');
    for (let i = 0; i < 12_000; i++) memory.record(`u-${i}`, { digest: `d${i}`, run: '20261120T010000.000Z-aaaa' });
    for (let i = 0; i < 12_000; i++) memory.record(`u-${i}`, { digest: `e${i}`, run: '20261120T010000.000Z-aaaa' });
    for (let i = 0; i < 12_000; i++) memory.record(`u-${i}`, { digest: `f${i}`, run: '20261120T010000.000Z-aaaa' });
    memory.recordPopulation('', '20261120T010000.000Z-aaaa', true);
    await memory.durable();
    const before = readFileSync(memoryFile(dir, target, 'users'), 'utf8');
    expect(before).toContain('"e":false');
    await memory.close();
    // Compacted at close (more than 1.5 lines per id plus the slack): entries first, the population last.
    const lines = readFileSync(memoryFile(dir, target, 'users'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(12_002);
    expect(lines.at(-1)).toMatch(/"t":"population".*"e":true/);
    expect(lines.slice(1, -1).some((line) => line.includes('"t":"population"'))).toBe(false);
  });

  it('keeps the store heads runs saw, a run that records none too (a served store that could not say where it stands: trial48 F01)', async () => {
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    const seen = ['A'.repeat(22), '20261120T010000.000Z-aaaa', 'attempt1', true] as const;
    memory.recordPopulation('', '20261120T010000.000Z-aaaa', true, undefined, [...seen]);
    memory.recordPopulation('', '20261120T020000.000Z-bbbb', true);
    await memory.close();
    const read = await SyncMemory.open(dir, target, 'users', { ...plain, readOnly: true });
    expect(read.populations().get('')).toMatchObject({ run: '20261120T020000.000Z-bbbb', heads: [[...seen]] });
    await read.close();
  });
});

describe('synced import of a copy taken while a run still wrote', () => {
  it("is refused over the memory that holds that run's end (it would forget what the run did last); --force replaces it", async () => {
    const { exportMemory, importMemory } = await import('../../src/sync/memory-transfer.js');
    const place = { kind: 'dir', syncDir: dir } as const;
    const run = '20261120T010000.000Z-aaaa';
    const memory = await SyncMemory.open(dir, target, 'users', plain);
    memory.recordPopulation('', run);
    memory.record('u-1', { digest: '', run, tentative: true });
    await memory.durable();
    const copy = await exportMemory(place, target, {});
    memory.record('u-1', { digest: 'd1', run });
    memory.recordPopulation('', run, true);
    await memory.close();
    const options = { force: false, lockTimeoutMs: 0, env: {} };
    await expect(importMemory(place, target, copy.text, 'copy.json', options)).rejects.toThrow(
      /exported while run 20261120T010000\.000Z-aaaa still wrote its users memory .*refused, nothing written/,
    );
    expect((await importMemory(place, target, copy.text, 'copy.json', { ...options, force: true })).replaced).toBe(run);
  });
});
