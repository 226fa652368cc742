import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { startUserSyncService, stopUserSyncService, type UserSyncService } from '../support/fault-server.js';
import { LostZerosRule } from '../../src/sync/lost-zeros.js';
import type { MemoryEntry } from '../../src/sync/memory-lines.js';

/**
 * A leaver is a user missing from the file as the service compares ids: ignoring case (docs/sync.md,
 * "Leavers"). An export that spells st-3 as ST-3 one night lists the same user: not a leaver, never
 * disabled (QA 44: the row failed with 233 and the user was disabled besides). Both targets. And
 * a leaver whose digits come back without their leading zeros as a new user refuses the night.
 */

const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const ids = Array.from({ length: 20 }, (_, i) => `st-${i}`);

function writeUsers(dir: string, name: string, spelled: (id: string) => string): void {
  writeFileSync(
    join(dir, name),
    `${[HEADER, ...ids.map((id) => `${spelled(id)},First,Last ${id},${id}@example.test,${id},Candidate`)].join('\n')}\n`,
  );
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
    const sync = (file: string) =>
      examctl(
        [
          'user',
          'sync',
          '--file',
          file,
          '--target',
          'local',
          '--store',
          'store',
          '--changed-only',
          '--disable-missing',
          '--json',
        ],
        dir,
        env,
      );
    expect((await sync('night1.csv')).code).toBe(0);
    const second = await sync('night2.csv');
    const items = (JSON.parse(second.stdout) as { items: Item[] }).items;
    expect(items.filter((item) => item.action === 'disabled')).toEqual([]);
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    const st3 = (JSON.parse(exported.stdout) as { Users: { ExternalId: string; DisableLogin?: boolean }[] }).Users.find(
      (user) => user.ExternalId === 'st-3',
    );
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
    const sync = (file: string) =>
      examctl(
        ['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--disable-missing'],
        setup.dir,
        setup.env,
      );
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

  /** The file's ids, one a line from line 2, checked against a memory holding `ids`. */
  const check = (file: string[], ids: string[] | undefined) => {
    const zeros = new LostZerosRule([
      {
        what: 'id',
        made: 'user',
        idsOf: (record) => [record.fields.ExternalId as string],
        memory: ids === undefined ? undefined : remembered(ids),
      },
    ]);
    file.forEach((id, i) => zeros.add({ fields: { ExternalId: id }, source: { file: 'users.csv', line: i + 2 } }));
    return zeros;
  };

  it('refuses a new id the memory holds with leading zeros, naming the count and the first lines; passes ids both remembered, or other ids', () => {
    expect(() => check(['123'], ['00123']).settle('remote https://exam.example.test')).toThrow(
      /^the file gives 1 new id that examctl synced to remote https:\/\/exam.example.test with leading zeros \(users.csv:2 123 for 00123\): a spreadsheet that read the id column as numbers dropped them\? Nothing was sent .*run again with --really-new-ids$/,
    );
    expect(() => check(['1', '2', '3', '4', '5'], ['001', '002', '003', '004', '005']).settle('t')).toThrow(
      /gives 5 new ids .*\(users.csv:2 1 for 001; users.csv:3 2 for 002; users.csv:4 3 for 003, 2 more\)/,
    );
    // 123 synced before: two users, both known.
    expect(() => check(['123'], ['00123', '123']).settle('t')).not.toThrow();
    // Not the same digits, not digits at all, or no memory to compare with.
    expect(() => check(['124'], ['00123']).settle('t')).not.toThrow();
    expect(() => check(['abc'], ['0abc']).settle('t')).not.toThrow();
    expect(() => check(['1a'], ['01a']).settle('t')).not.toThrow();
    expect(() => check(['123'], undefined).settle('t')).not.toThrow();
  });

  it('two ids of one file alike but for their leading zeros fail both rows, each naming the other, memory or not', () => {
    const zeros = check(['004000', 'st-1', '4000', '4000', '0004000'], undefined);
    expect(zeros.hasPairs).toBe(true);
    // Each row names its own id and the other's line.
    expect(zeros.problemAt(2, '004000')?.message).toMatch(/^ExternalId 004000 .*\b4000 on line 4\b/);
    expect(zeros.problemAt(4, '4000')?.message).toMatch(/^ExternalId 4000 .*\b004000 on line 2\b/);
    expect(zeros.problemAt(6, '0004000')?.message).toMatch(/^ExternalId 0004000 .*\b004000 on line 2\b/);
    expect(zeros.problemAt(6, '0004000')).toMatchObject({ field: 'ExternalId', code: 9018 });
    // The same spelling twice is a repeated id (its own rule), not a pair; other rows are untouched.
    expect(zeros.problemAt(5, '4000')?.message).toMatch(/^ExternalId 4000 .*\b004000 on line 2\b/);
    expect(zeros.problemAt(3, 'st-1')).toBeUndefined();
    // The pair is in the file: no refusal for it, its rows fail instead.
    expect(() => check(['4000', '004000'], ['004000']).settle('t')).not.toThrow();
    expect(check(['7', '8'], ['0007']).hasPairs).toBe(false);
  });

  describe('end to end, remote', () => {
    let setup: UserSyncService;
    const sent: string[] = [];
    const ids = Array.from({ length: 30 }, (_, i) => String(i + 1).padStart(6, '0'));
    /** A night's file: the ids as `spell` writes them (a spreadsheet's `7` for `000007`). */
    const write = (name: string, spell: (id: string) => string) =>
      writeFileSync(
        join(setup.dir, name),
        `${[HEADER, ...ids.map((id) => `${spell(id)},First,Last ${id},u${id}@example.test,u${id},Candidate`)].join('\n')}\n`,
      );

    beforeEach(async () => {
      sent.length = 0;
      setup = await startUserSyncService('examctl-lost-zeros-', (user) => sent.push(String(user.ExternalId)));
      write('night1.csv', (id) => id);
      write('excel.csv', (id) => (id === '000007' ? '7' : id));
    });
    afterEach(async () => {
      await stopUserSyncService(setup);
    });

    it('a plain run (no sync flag, dry or real) refuses a file whose ids lost their zeros: exit 2, no request, the count and first lines named', async () => {
      const plain = (file: string, ...more: string[]) =>
        examctl(['user', 'sync', '--file', file, ...setup.remote(), ...more], setup.dir, setup.env);
      expect((await plain('night1.csv')).code).toBe(0);
      // Every id through a spreadsheet: 30 new ids, each a remembered one without its zeros.
      write('all-stripped.csv', (id) => String(Number(id)));
      const requests = setup.service.requests.length;
      sent.length = 0;
      for (const run of [
        await plain('all-stripped.csv', '--json'),
        await plain('all-stripped.csv', '--dry-run'),
        await plain('excel.csv'),
      ]) {
        expect(run.code, run.stderr).toBe(2);
        expect(setup.service.requests.length).toBe(requests);
      }
      const refused = await plain('all-stripped.csv', '--json');
      expectCoded(
        refused.stderr,
        'E2000',
        '30 new ids',
        'all-stripped.csv:2 1 for 000001; all-stripped.csv:3 2 for 000002; all-stripped.csv:4 3 for 000003, 27 more',
      );
      const document = JSON.parse(refused.stdout) as { error: { exitCode: number }; items: { status: string }[] };
      expect(document.error.exitCode).toBe(2);
      expect(new Set(document.items.map((item) => item.status))).toEqual(new Set(['skipped']));
      expect(sent).toEqual([]);
      // Said to be really new: sent; from then on 7 is a user examctl synced, and the file passes.
      expect((await plain('excel.csv', '--really-new-ids')).code).toBe(0);
      expect(sent).toContain('7');
      sent.length = 0;
      expect((await plain('excel.csv')).code).toBe(0);
      expect(sent).toHaveLength(30);
    });

    it('with --disable-missing: exit 2, nothing sent, and the same file with the zeros kept is a quiet night', async () => {
      const sync = (file: string) =>
        examctl(
          ['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--disable-missing'],
          setup.dir,
          setup.env,
        );
      expect((await sync('night1.csv')).code).toBe(0);
      sent.length = 0;
      const refused = await sync('excel.csv');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('(excel.csv:8 7 for 000007)');
      expect(sent).toEqual([]);
      expect((await sync('night1.csv')).code).toBe(0);
      expect(sent).toEqual([]);
    });

    it('two ids of the file alike but for their zeros fail both rows, naming each other, on a first run; the rest is sent', async () => {
      writeFileSync(
        join(setup.dir, 'mixed.csv'),
        `${HEADER}\n004000,A,One,a@example.test,a4000,Candidate\nst-9,B,Two,b@example.test,b9,Candidate\n4000,A,One,a2@example.test,a4000b,Candidate\n`,
      );
      const run = await examctl(
        ['user', 'sync', '--file', 'mixed.csv', ...setup.remote(), '--json'],
        setup.dir,
        setup.env,
      );
      expect(run.code).toBe(1);
      const items = (
        JSON.parse(run.stdout) as { items: { id: string; status: string; errors: { message: string }[] }[] }
      ).items;
      expect(items.map((item) => [item.id, item.status])).toEqual([
        ['004000', 'failed'],
        ['st-9', 'ok'],
        ['4000', 'failed'],
      ]);
      expect(items[0]!.errors[0]).toMatchObject({ code: 9018, message: expect.stringMatching(/\b4000 on line 4\b/) });
      expect(items[2]!.errors[0]).toMatchObject({ code: 9018, message: expect.stringMatching(/\b004000 on line 2\b/) });
      expect(sent).toEqual(['st-9']);
    });
  });
});
