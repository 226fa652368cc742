import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { range } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  type FaultServer,
  okEnvelope,
  startUserSyncService,
  stopUserSyncService,
  type UserSyncService,
} from '../support/fault-server.js';

/**
 * A request that may have changed the target without an ok (RecordJob.unsettled, docs/sync.md):
 * its row must not be judged unchanged by the memory the next night, also when the file gives
 * again what was acknowledged before (QA: a partial rename put back was never sent).
 */
const all = range('stu', 40);
const moved = all[7]!;

let dir: string;
let env: Record<string, string>;
let service: FaultServer;
let setup: UserSyncService;
let applied: Record<string, unknown>[];

function writeCsv(name: string, firstName: (id: string) => string): void {
  const lines = ['ExternalId,FirstName,LastName,Email,UserName,Role'];
  for (const id of all) lines.push(`${id},${firstName(id)},Last ${id},${id}@example.test,name-${id},Candidate`);
  writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
}

beforeEach(async () => {
  setup = await startUserSyncService('examctl-unsettled-', (user) => applied.push(user));
  ({ dir, env, service } = setup);
  applied = [];
  writeCsv('full.csv', (id) => `First ${id}`);
  writeCsv('renamed.csv', (id) => (id === moved ? 'Renamed' : `First ${id}`));
});
afterEach(() => stopUserSyncService(setup));

/** The service applies every request and answers ok. */
function appliedOk(request: { body: string }): ReturnType<typeof okEnvelope> {
  const user = JSON.parse(request.body) as Record<string, unknown>;
  applied.push(user);
  return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
}

const night = (file: string, ...more: string[]) =>
  examctl(['user', 'sync', '--file', file, ...setup.remote(), '--changed-only', '--json', ...more], dir, env);

describe('a request that may have changed the target without an ok is sent again the next night', () => {
  it('partial: the row put back as it was acknowledged before is sent, then unchanged again', async () => {
    expect((await night('full.csv')).code).toBe(0);
    expect(applied).toHaveLength(all.length);
    // The rename is saved but a hierarchy fails: a partial answer.
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as Record<string, unknown>;
      applied.push(user);
      return user.ExternalId === moved
        ? okEnvelope({
            User: { ExternalId: moved },
            GroupErrors: [{ ExternalId: 'H-9', Code: 131, Error: 'Hierarchy not found' }],
          })
        : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
    const partial = await night('renamed.csv');
    expect(partial.code, partial.stderr).toBe(1);
    expect(applied.slice(all.length).map((user) => user.FirstName)).toEqual(['Renamed']);

    // Back to the file the memory acknowledged: the service holds "Renamed", so the row must go.
    service.fallback = appliedOk;
    // The first night's very file after renamed.csv: an older run's file (docs/sync.md, "Stale input"), meant here.
    const back = await night('full.csv', '--allow-old-file');
    expect(back.code, back.stderr).toBe(0);
    expect(applied.slice(all.length + 1)).toEqual([
      expect.objectContaining({ ExternalId: moved, FirstName: `First ${moved}` }),
    ]);

    const after = await night('full.csv');
    expect(after.code, after.stderr).toBe(0);
    expect(applied).toHaveLength(all.length + 2);
  });

  it('no definite answer (a 503 that retries did not cure): the row is sent again the next night', async () => {
    expect((await night('full.csv')).code).toBe(0);
    service.fallback = (request) => {
      const user = JSON.parse(request.body) as Record<string, unknown>;
      applied.push(user);
      return user.ExternalId === moved
        ? { status: 503, body: 'busy', headers: { 'retry-after': '0' } }
        : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
    };
    const lost = await examctl(
      ['user', 'sync', '--file', 'renamed.csv', ...setup.remote(), '--changed-only', '--json'],
      dir,
      env,
    );
    expect(lost.code, lost.stderr).toBe(3);
    expect(applied.slice(all.length).every((user) => user.ExternalId === moved)).toBe(true);

    service.fallback = appliedOk;
    const sentBefore = applied.length;
    // The first night's very file after renamed.csv: an older run's file (docs/sync.md, "Stale input"), meant here.
    const back = await night('full.csv', '--allow-old-file');
    expect(back.code, back.stderr).toBe(0);
    expect(applied.slice(sentBefore)).toEqual([
      expect.objectContaining({ ExternalId: moved, FirstName: `First ${moved}` }),
    ]);
  });

  const contradictory = [
    {
      status: 400,
      body: JSON.stringify({ Success: true, Content: { User: { ExternalId: moved } }, Errors: [] }),
      says: 'HTTP 400 with Success: true',
    },
    {
      status: 200,
      body: JSON.stringify({ Success: false, Content: null, Errors: [{ Code: 500, Message: 'internal error' }] }),
      says: 'internal error',
    },
    // trial31 F07: the answer is about another user; a Success that is no boolean is said as what came.
    {
      status: 200,
      body: JSON.stringify({ Success: true, Content: { User: { ExternalId: 'someone-else' } }, Errors: null }),
      says: `answered for someone-else, not ${moved}`,
    },
    {
      status: 200,
      body: JSON.stringify({ Success: 'true', Content: { User: { ExternalId: moved } }, Errors: null }),
      says: 'Success as a string (HTTP 200), not the boolean true',
    },
  ];
  it.each(contradictory)(
    'an answer that contradicts itself ($says) fails the row but may have applied it: the row is sent again the next night (trial26 F05)',
    async ({ status, body, says }) => {
      expect((await night('full.csv')).code).toBe(0);
      service.fallback = (request) => {
        const user = JSON.parse(request.body) as Record<string, unknown>;
        applied.push(user);
        return user.ExternalId === moved
          ? { status, body }
          : okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
      };
      const failed = await night('renamed.csv');
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stdout).toContain(says);
      service.fallback = appliedOk;
      const sentBefore = applied.length;
      const back = await night('full.csv', '--allow-old-file');
      expect(back.code, back.stderr).toBe(0);
      expect(applied.slice(sentBefore)).toEqual([
        expect.objectContaining({ ExternalId: moved, FirstName: `First ${moved}` }),
      ]);
    },
  );
});

describe('a collection answered 200 Success: false by a server that made it (trial26 F09)', () => {
  it("next night's 810 names the run that sent it, not 'no record of sending it there'", async () => {
    writeFileSync(join(dir, 'chem.json'), JSON.stringify([{ ExternalId: 'chem1', Title: 'Chemistry' }]));
    const add = () =>
      examctl(['collection', 'add', '--file', 'chem.json', ...setup.remote(), '--existing', 'ok', '--json'], dir, env);
    service.script({
      status: 200,
      body: { Success: false, Content: null, Errors: [{ Code: 500, Message: 'internal error' }] },
    });
    const first = await add();
    expect(first.code, first.stderr).toBe(1);
    const run = (JSON.parse(first.stdout) as { run: string }).run;
    service.script({
      status: 400,
      body: {
        Success: false,
        Content: null,
        Errors: [{ Code: 810, Message: 'Collection with this ExternalId already exists' }],
      },
    });
    const second = await add();
    expect(second.code, second.stderr).toBe(1);
    // 810, in doubt: the run that sent it with no definite answer.
    const items = (JSON.parse(second.stdout) as { items: { errors: { code: number; message: string }[] }[] }).items;
    expect(items[0]!.errors[0]).toMatchObject({ code: 810, message: expect.stringContaining(`in run ${run} `) });
  });
});
