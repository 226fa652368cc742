import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { checkedLineBodies } from '../support/checked-lines.js';
import { rawDigest, rulesFingerprint } from '../../src/sync/raw-digest.js';

/**
 * The raw digest (docs/sync.md, "The raw digest"): a --changed-only night judges a table row
 * unchanged by the digest of its fields as read and shaped, remembered beside the acknowledged
 * request's digest, without validating the row again. Every way the same bytes can make another
 * request (a --set, a --map, a --date-format) must still be judged changed and sent; an older
 * memory without raw digests still works; a duplicate id still fails; a mover is still pruned.
 * Requests are counted by a loopback server.
 */

const USERS = 300;
const all = range('stu', USERS);

let dir: string;
let env: Record<string, string>;
let setup: UserSyncService;
let applied: Record<string, unknown>[];

beforeEach(async () => {
  setup = await startUserSyncService('examctl-raw-digest-', (user) => {
    applied.push(user);
  });
  ({ dir, env } = setup);
  applied = [];
});
afterEach(() => stopUserSyncService(setup));

const remote = () => setup.remote();

/** A users CSV: `extra` columns (header, cell of each id) after the usual ones. */
function writeCsv(name: string, extra: [string, (id: string) => string][] = []): void {
  const lines = [
    ['ExternalId', 'FirstName', 'LastName', 'Email', 'UserName', 'Role', ...extra.map(([header]) => header)].join(','),
  ];
  for (const id of all)
    lines.push(
      [
        id,
        `First ${id}`,
        `Last ${id}`,
        `${id}@example.test`,
        `name-${id}`,
        'Candidate',
        ...extra.map(([, cell]) => cell(id)),
      ].join(','),
    );
  writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
}

async function sync(
  file: string,
  ...flags: string[]
): Promise<{ code: number | null; stderr: string; stdout: string; sent: Record<string, unknown>[] }> {
  applied = [];
  const run = await examctl(['user', 'sync', '--file', file, ...remote(), ...flags], dir, env);
  return { code: run.code, stderr: run.stderr, stdout: run.stdout, sent: [...applied] };
}

/** The memory's entry lines (of its file, or of `text`), decoded. */
function memoryLines(text?: string): Record<string, unknown>[] {
  const synced = join(dir, 'state', 'synced');
  const content = text ?? readFileSync(join(synced, readdirSync(synced)[0]!, 'users.ndjson'), 'utf8');
  // Not the header nor the population lines (their `t` is a word; an entry's is `true`: tentative).
  return checkedLineBodies(content).filter((body) => typeof body.t !== 'string');
}

/** Rewrites each line of the memory (checksums made again), as an earlier examctl or a hand would. */
function rewriteMemory(change: (body: Record<string, unknown>) => Record<string, unknown>): void {
  const synced = join(dir, 'state', 'synced');
  const file = join(synced, readdirSync(synced)[0]!, 'users.ndjson');
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const body = (decodeChecksummedLine(Buffer.from(line, 'utf8')) as { body: Record<string, unknown> }).body;
      return encodeChecksummedLine(JSON.stringify(body.t === 'sync-memory' ? body : change(body)));
    });
  writeFileSync(file, lines.join(''), { mode: 0o600 });
}

describe('--changed-only judged by the raw digest', () => {
  it('a full run remembers a raw digest beside each request digest; the same file the next night sends nothing', async () => {
    writeCsv('users.csv');
    expect((await sync('users.csv')).code).toBe(0);
    // Each joiner's tentative intent before its request (docs/sync.md, "A request cut short"), then its acknowledgement.
    const lines = memoryLines().filter((line) => line.d !== '');
    expect(lines).toHaveLength(USERS);
    expect(memoryLines().filter((line) => line.d === '' && line.t === true)).toHaveLength(USERS);
    // Written right after the run: where the --changed-only reader looks for it.
    expect(
      lines.every((line) => typeof line.w === 'string' && Object.keys(line).slice(0, 4).join() === 'id,d,r,w'),
    ).toBe(true);
    const night = await sync('users.csv', '--changed-only', '--json');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent).toEqual([]);
    expect(night.stderr).toContain(`${USERS} unchanged (not sent)`);
    // Counted and listed: the report's items add up to its total.
    const report = JSON.parse(night.stdout) as {
      summary: { total: number; ok: number };
      items: { action?: string; note?: string }[];
    };
    expect(report.summary).toMatchObject({ total: USERS, ok: USERS });
    expect(
      report.items.filter((item) => item.action === 'unchanged' && item.note?.startsWith('unchanged since run ')),
    ).toHaveLength(USERS);
    // Judged by the raw digest, not by the request's: a line whose request digest alone is
    // altered (by hand: examctl writes both together) still says unchanged for its row.
    rewriteMemory((body) => (body.id === all[3] ? { ...body, d: 'altered' } : body));
    expect((await sync('users.csv', '--changed-only')).sent).toEqual([]);
  });

  it('the same bytes with a --set that makes another request: every row is sent', async () => {
    writeCsv('users.csv');
    expect((await sync('users.csv', '--set', 'City=Utrecht')).code).toBe(0);
    const night = await sync('users.csv', '--changed-only', '--set', 'City=Leiden');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent).toHaveLength(USERS);
    expect(night.sent.every((user) => user.City === 'Leiden')).toBe(true);
    // The same --set again: nothing.
    expect((await sync('users.csv', '--changed-only', '--set', 'City=Leiden')).sent).toEqual([]);
  });

  it('the same bytes under another --map: every row is sent', async () => {
    writeCsv('users.csv', [['Nick', (id) => `nick-${id}`]]);
    expect((await sync('users.csv', '--map', 'Nick=Company')).code).toBe(0);
    const night = await sync('users.csv', '--changed-only', '--map', 'Nick=City');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent).toHaveLength(USERS);
    expect(
      night.sent.every((user) => user.City === `nick-${String(user.ExternalId)}` && user.Company === undefined),
    ).toBe(true);
  });

  it('the same bytes under another --date-format: the rows whose date reads otherwise are sent, the others not', async () => {
    // Day and month equal on every 10th row: the same date either way.
    writeCsv('users.csv', [['DateOfBirth', (id) => (Number(id.slice(4)) % 10 === 0 ? '05/05/2001' : '03/04/2001')]]);
    expect((await sync('users.csv', '--date-format', 'DD/MM/YYYY')).code).toBe(0);
    const night = await sync('users.csv', '--changed-only', '--date-format', 'MM/DD/YYYY');
    expect(night.code, night.stderr).toBe(0);
    const moved = all.filter((id) => Number(id.slice(4)) % 10 !== 0);
    expect(night.sent.map((user) => user.ExternalId).sort()).toEqual(moved);
    expect(night.sent.every((user) => user.DateOfBirth === '2001-03-04')).toBe(true);
  });

  it('a row changed in one cell is sent; a repeated id still fails though its row is the remembered one', async () => {
    writeCsv('users.csv');
    expect((await sync('users.csv')).code).toBe(0);
    const lines = readFileSync(join(dir, 'users.csv'), 'utf8').trimEnd().split('\n');
    lines[10] = lines[10]!.replace('Last ', 'Other ');
    // The first row again at the end: byte for byte the remembered row, so its raw digest matches.
    lines.push(lines[1]!);
    writeFileSync(join(dir, 'tonight.csv'), `${lines.join('\n')}\n`);
    const night = await sync('tonight.csv', '--changed-only', '--json');
    expect(night.code).toBe(1);
    expect(night.sent.map((user) => user.ExternalId)).toEqual([all[9]]);
    const items = (
      JSON.parse(night.stdout) as {
        items: { id: string; status: string; errors: { field: string; message: string }[] }[];
      }
    ).items;
    expect(items).toHaveLength(USERS + 1);
    expect(items.at(-1)).toMatchObject({ id: all[0], status: 'failed' });
    expect(items.at(-1)!.errors[0]!.field).toBe('ExternalId');
    expect(items.at(-1)!.errors[0]!.message).toContain('line 2');
  });

  it('a memory written before raw digests (none on its lines) still decides: unchanged rows are not sent, a changed one is', async () => {
    writeCsv('users.csv');
    expect((await sync('users.csv')).code).toBe(0);
    // The memory as the previous examctl wrote it: the same lines without `w`.
    rewriteMemory(({ w: _w, ...body }) => body);
    expect(memoryLines().some((line) => 'w' in line)).toBe(false);
    const lines = readFileSync(join(dir, 'users.csv'), 'utf8').trimEnd().split('\n');
    lines[5] = lines[5]!.replace('Last ', 'Other ');
    writeFileSync(join(dir, 'tonight.csv'), `${lines.join('\n')}\n`);
    const night = await sync('tonight.csv', '--changed-only');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent.map((user) => user.ExternalId)).toEqual([all[4]]);
    // Such a night makes no raw digest (it costs what it did): the row it sent is remembered
    // without one; the next full run gives every row one.
    expect(
      memoryLines()
        .filter((line) => line.id === all[4])
        .at(-1)?.w,
    ).toBeUndefined();
    expect((await sync('tonight.csv')).code).toBe(0);
    expect(
      memoryLines()
        .filter((line) => line.id === all[4])
        .at(-1)?.w,
    ).toEqual(expect.any(String));
  });

  it('--prune-memberships: a row whose remembered links the request would prune has no raw digest, so the mover is sent', async () => {
    writeCsv('a.csv', [['Hierarchies', () => 'H-A']]);
    writeCsv('b.csv', [['Hierarchies', () => 'H-B']]);
    // Without --prune-memberships the move to H-B leaves H-A managed: the request alone is not the whole truth.
    expect((await sync('a.csv')).code).toBe(0);
    expect((await sync('b.csv')).code).toBe(0);
    expect(
      memoryLines()
        .filter((line) => line.id === all[0])
        .at(-1)?.w,
    ).toBeUndefined();
    const night = await sync('b.csv', '--changed-only', '--prune-memberships', '--max-prune', '100%');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent).toHaveLength(USERS);
    expect(night.sent[0]!.Hierarchies).toEqual([
      expect.objectContaining({ ExternalId: 'H-B' }),
      { ExternalId: 'H-A', Action: 'DELETE' },
    ]);
    // Pruned: the next night sends nothing; and after a full run the links are the request's, so
    // the raw digest stands, and the night after judges by it and still sends nothing.
    expect((await sync('b.csv', '--changed-only', '--prune-memberships')).sent).toEqual([]);
    expect((await sync('b.csv')).code).toBe(0);
    expect(
      memoryLines()
        .filter((line) => line.id === all[0])
        .at(-1)?.w,
    ).toEqual(expect.any(String));
    expect((await sync('b.csv', '--changed-only', '--prune-memberships')).sent).toEqual([]);
  });
});

describe('a memory with raw digests after a kill', () => {
  it('a full run killed at a marker, then a line torn by hand: the night sends exactly what the memory does not hold', async () => {
    writeCsv('users.csv');
    applied = [];
    const killed = await examctl(['user', 'sync', '--file', 'users.csv', ...remote()], dir, {
      ...env,
      EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:120:SIGKILL',
    });
    expect(killed.signal).toBe('SIGKILL');
    // A kill mid-write of the memory: its last line torn (no newline), as a crash leaves it.
    const synced = join(dir, 'state', 'synced');
    const file = join(synced, readdirSync(synced)[0]!, 'users.ndjson');
    // The kill itself may have torn the last line (a write on the pool's thread, cut): only whole lines are kept.
    const read = readFileSync(file, 'utf8');
    const whole = read.slice(0, read.lastIndexOf('\n') + 1);
    const last = whole.slice(whole.lastIndexOf('\n', whole.length - 2) + 1);
    writeFileSync(file, whole + last.slice(0, 40), { mode: 0o600 });
    // Acknowledged: an id whose last line has a digest (an intent's is empty: its request may not have been answered).
    const lastDigest = new Map(memoryLines(whole).map((line) => [line.id as string, line.d as string]));
    const remembered = new Set([...lastDigest].filter(([, digest]) => digest !== '').map(([id]) => id));
    expect(remembered.size).toBeGreaterThan(0);
    expect(remembered.size).toBeLessThan(lastDigest.size);
    const night = await sync('users.csv', '--changed-only', '--json');
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent.map((user) => user.ExternalId as string).sort()).toEqual(all.filter((id) => !remembered.has(id)));
    // Now every row is remembered, each with its raw digest: the next night sends nothing.
    const lines = memoryLines();
    expect(new Set(lines.map((line) => line.id))).toEqual(new Set(all));
    // Each id's last line: acknowledged with its raw digest (intents before the requests have none).
    const lastOf = new Map(lines.map((line) => [line.id, line]));
    expect([...lastOf.values()].every((line) => typeof line.w === 'string')).toBe(true);
    expect((await sync('users.csv', '--changed-only')).sent).toEqual([]);
  });
});

describe('rawDigest and the rules fingerprint', () => {
  it('differ with the rules and with the fields, never with nothing', async () => {
    const rules = await rulesFingerprint(() => 'one way');
    const other = await rulesFingerprint(() => 'another way');
    expect(rules).toEqual(expect.any(String));
    expect(other).not.toBe(rules);
    const fields = { ExternalId: 'u-1', FirstName: 'Ada', Labels: ['a', 'b'] };
    expect(rawDigest(rules!, fields)).toBe(rawDigest(rules!, { ...fields }));
    expect(rawDigest(other!, fields)).not.toBe(rawDigest(rules!, fields));
    expect(rawDigest(rules!, { ...fields, Labels: ['a|b'] })).not.toBe(rawDigest(rules!, fields));
    expect(rawDigest(rules!, { ...fields, FirstName: 'Ada ' })).not.toBe(rawDigest(rules!, fields));
    // Typed values (a JSON input) have none: they take the request digest's path.
    expect(rawDigest(rules!, { ...fields, SpecialNeeds: true })).toBeUndefined();
    expect(rawDigest(rules!, { ...fields, Labels: [1] })).toBeUndefined();
  });

  it('is the first 16 bytes of the SHA-256 of the UTF-8 text, in base64url, whatever the characters (memories keep their digests)', () => {
    for (const name of ['Ada', 'Chloé', '日本', '😀 \u2028', '']) {
      const fields = { ExternalId: `u-${name}`, FirstName: name, Labels: [name] };
      const bytes = createHash('sha256')
        .update(`fp\n${JSON.stringify(fields)}`, 'utf8')
        .digest();
      expect(rawDigest('fp\n', fields)).toBe(bytes.subarray(0, 16).toString('base64url'));
    }
    // A digest the memories of earlier versions hold for these fields.
    expect(rawDigest('fp\n', { ExternalId: 'u-1', FirstName: 'Chloé' })).toBe('ICSfMKRxwHAl-TuwpCQjsA');
  });
});
