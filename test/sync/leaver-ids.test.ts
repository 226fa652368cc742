import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctl } from '../durability/helpers.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';
import { refuseLostZeros } from '../../src/sync/user-sync-memory.js';
import type { MemoryEntry } from '../../src/sync/sync-memory.js';


/**
 * A leaver is a user missing from the file as the service compares ids: ignoring case (docs/sync.md,
 * "Leavers"). An export that spells st-3 as ST-3 one night lists the same user: not a leaver, never
 * disabled (QA 44: the row failed with 233 and the user was disabled besides). Both targets. And
 * a leaver whose digits come back without their leading zeros as a new user refuses the night.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const ids = Array.from({ length: 20 }, (_, i) => `st-${i}`);

function writeUsers(dir: string, name: string, spelled: (id: string) => string): void {
  writeFileSync(join(dir, name), `${[HEADER, ...ids.map((id) => `${spelled(id)},First,Last ${id},${id}@example.test,${id},Candidate`)].join('\n')}\n`);
}

const upperSt3 = (id: string) => (id === 'st-3' ? 'ST-3' : id);

interface Item {
  id: string;
  status: string;
  action?: string;
}

describe('leavers ignore the case of ids, local', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'examctl-leaver-case-'));
    env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs') };
    writeUsers(dir, 'night1.csv', (id) => id);
    writeUsers(dir, 'night2.csv', upperSt3);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a row whose id changed case is not a leaver: nothing disabled, the store keeps st-3 enabled', async () => {
    const sync = (file: string) => examctl(['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--changed-only', '--disable-missing', '--json'], dir, env);
    expect((await sync('night1.csv')).code).toBe(0);
    const second = await sync('night2.csv');
    const items = (JSON.parse(second.stdout) as { items: Item[] }).items;
    expect(items.filter((item) => item.action === 'disabled')).toEqual([]);
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    const st3 = (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users.find((user) => user.ExternalId === 'st-3');
    expect(st3?.DisableLogin === true).toBe(false);
  });
});

describe('leavers ignore the case of ids, remote', () => {
  let setup: UserSyncService;
  const sent: Record<string, unknown>[] = [];
  beforeEach(async () => {
    sent.length = 0;
    setup = await startUserSyncService('examctl-leaver-case-remote-', (user) => sent.push(user));
    writeUsers(setup.dir, 'night1.csv', (id) => id);
    writeUsers(setup.dir, 'night2.csv', upperSt3);
  });
  afterEach(async () => {
    await stopUserSyncService(setup);
  });

  it('no disable is sent for st-3 when the file says ST-3', async () => {
    const sync = (file: string) => examctl(['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--disable-missing'], setup.dir, setup.env);
    expect((await sync('night1.csv')).code).toBe(0);
    sent.length = 0;
    const second = await sync('night2.csv');
    expect(second.code, second.stderr).toBe(0);
    expect(sent.filter((user) => user.DisableLogin === true)).toEqual([]);
    expect(sent.map((user) => user.ExternalId)).toEqual(['ST-3']);
  });
});

describe('leading zeros a spreadsheet dropped (docs/input-formats.md, "Leading zeros")', () => {
  const entry: MemoryEntry = { digest: 'd', run: 'r' };
  const remembered = (ids: string[]) => ({ peek: (id: string) => (ids.includes(id) ? entry : undefined) });

  it('refuses a leaver 00123 whose digits the file lists as a user never synced; passes two users both remembered, or other ids', () => {
    expect(() => refuseLostZeros([['00123', entry]], new Set(['123']), remembered(['00123']))).toThrow(
      /--disable-missing: the file lists 1 user examctl synced without its leading zeros \(00123 as 123\): a spreadsheet that read the id column as numbers dropped them\? Nothing was sent/,
    );
    const many = Array.from({ length: 5 }, (_, i) => [`00${i + 1}`, entry] as const);
    expect(() => refuseLostZeros(many, new Set(['1', '2', '3', '4', '5']), remembered([]))).toThrow(/lists 5 users .*\(001 as 1, 002 as 2, 003 as 3, 2 more\)/);
    // 123 synced before: two users, a real leaver.
    expect(() => refuseLostZeros([['00123', entry]], new Set(['123']), remembered(['00123', '123']))).not.toThrow();
    // Not the same digits, or not digits at all.
    expect(() => refuseLostZeros([['00123', entry]], new Set(['124']), remembered([]))).not.toThrow();
    expect(() => refuseLostZeros([['0abc', entry]], new Set(['abc']), remembered([]))).not.toThrow();
    expect(() => refuseLostZeros([['0', entry]], new Set(['']), remembered([]))).not.toThrow();
    // Only an id of digits is what a spreadsheet reads as a number: 01a stays 01a.
    expect(() => refuseLostZeros([['01a', entry]], new Set(['1a']), remembered([]))).not.toThrow();
  });

  describe('end to end, remote', () => {
    let setup: UserSyncService;
    const sent: string[] = [];
    const ids = Array.from({ length: 30 }, (_, i) => String(i + 1).padStart(6, '0'));
    /** A night's file: the ids as `spell` writes them (a spreadsheet's `7` for `000007`). */
    const write = (name: string, spell: (id: string) => string) =>
      writeFileSync(join(setup.dir, name), `${[HEADER, ...ids.map((id) => `${spell(id)},First,Last ${id},u${id}@example.test,u${id},Candidate`)].join('\n')}\n`);

    beforeEach(async () => {
      sent.length = 0;
      setup = await startUserSyncService('examctl-lost-zeros-', (user) => sent.push(String(user.ExternalId)));
      write('night1.csv', (id) => id);
      write('excel.csv', (id) => (id === '000007' ? '7' : id));
    });
    afterEach(async () => {
      await stopUserSyncService(setup);
    });

    it('without --disable-missing: the new id is sent with a warning naming the remembered one, until it is acknowledged', async () => {
      let refuse = true;
      const answer = setup.service.fallback;
      // 7 refused until `refuse` is cleared (still counted as sent); the rest as the service answers.
      setup.service.fallback = (request) => {
        if (!refuse || !request.body.includes('"ExternalId":"7"')) return typeof answer === 'function' ? answer(request) : answer;
        sent.push('7');
        return { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 214, Message: 'A user with the UserName u000007 already exists' }] } };
      };
      const sync = (file: string) => examctl(['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--json'], setup.dir, setup.env);
      expect((await sync('night1.csv')).code).toBe(0);
      const warning = 'new id, but examctl synced 000007 to this target: the same user, its leading zeros dropped by a spreadsheet? It is sent as a new user (docs/input-formats.md, "Leading zeros")';
      const warningsOf = (stdout: string) => (JSON.parse(stdout) as { items: { id: string; warnings?: { field: string; message: string }[] }[] }).items.find((item) => item.id === '7')?.warnings;
      // Refused the first time (its intent is remembered, not acknowledged): warned both nights.
      for (let night = 0; night < 2; night++) {
        sent.length = 0;
        const run = await sync('excel.csv');
        expect(sent).toEqual(['7']);
        expect(warningsOf(run.stdout)).toEqual([{ field: 'ExternalId', message: warning }]);
      }
      // Acknowledged: 7 is a user examctl synced, no longer new.
      refuse = false;
      expect(warningsOf((await sync('excel.csv')).stdout)).toEqual([{ field: 'ExternalId', message: warning }]);
      write('excel.csv', (id) => (id === '000007' ? '7' : id === '000001' ? 'x-1' : id));
      expect(warningsOf((await sync('excel.csv')).stdout)).toBeUndefined();
    });

    it('with --disable-missing: exit 2, nothing sent, and the same file with the zeros kept is a quiet night', async () => {
      const sync = (file: string) => examctl(['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--disable-missing'], setup.dir, setup.env);
      expect((await sync('night1.csv')).code).toBe(0);
      sent.length = 0;
      const refused = await sync('excel.csv');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('(000007 as 7)');
      expect(sent).toEqual([]);
      expect((await sync('night1.csv')).code).toBe(0);
      expect(sent).toEqual([]);
    });
  });
});
