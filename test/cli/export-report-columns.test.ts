import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examctlStep as examctl } from '../support/in-process.js';
import {
  startUserSyncService,
  stopUserSyncService,
  type RecordedRequest,
  type ScriptedReply,
  type UserSyncService,
} from '../support/fault-server.js';

/**
 * An export's own column named as one a report adds (`Run`, `Status`, `Action`, `Note`) is data
 * (docs/cli.md, "Run report"): kept in the report, the report's own columns after it, and a
 * report fed back reads it, never the report's column of that name (trial21 f03).
 */

let setup: UserSyncService;
let applied: Record<string, unknown>[];
let failing: boolean;

beforeEach(async () => {
  setup = await startUserSyncService('examctl-export-columns-', (user) => void applied.push(user));
  applied = [];
  failing = false;
  const ok = setup.service.fallback as (request: RecordedRequest) => ScriptedReply;
  setup.service.fallback = (request) =>
    failing
      ? { status: 400, body: { Content: null, Success: false, Errors: [{ Code: 202, Message: 'refused' }] } }
      : ok(request);
});
afterEach(() => stopUserSyncService(setup));

const sync = (...args: string[]) => examctl(['user', 'sync', ...setup.remote(), ...args], setup.dir, setup.env);
const lines = async (name: string) => (await readFile(join(setup.dir, name), 'utf8')).trim().split(/\r?\n/);

describe("an export's own column named as a report's", () => {
  it('a mapped `Run` column is kept in the report and its retry sends it, not the run id', async () => {
    await writeFile(
      join(setup.dir, 'n1.csv'),
      'ExternalId,FirstName,LastName,Email,Role,Run\nu1,F,L,u1@example.test,Candidate,RUN-B\n',
    );
    failing = true;
    expect((await sync('--file', 'n1.csv', '--map', 'Run=Labels', '--report', 'n1r.csv')).code).toBe(1);
    const [header, row] = await lines('n1r.csv');
    expect(header).toBe(
      'ExternalId,FirstName,LastName,Email,Role,Run,status,error_codes,error_messages,action,note,run',
    );
    expect(row).toMatch(/^u1,F,L,u1@example\.test,Candidate,RUN-B,failed,/);
    failing = false;
    applied = [];
    const retry = await sync('--file', 'n1r.csv', '--only-failed', '--map', 'Run=Labels');
    expect(retry.code, retry.stderr).toBe(0);
    expect(applied.map((user) => user.Labels)).toEqual([['RUN-B']]);
    // The report's own `run` alone is never read as the mapped column.
    await writeFile(
      join(setup.dir, 'r.csv'),
      `ExternalId,FirstName,LastName,Email,Role,status,error_codes,error_messages,run\nu1,F,L,u1@example.test,Candidate,failed,,,RUN-X\n`,
    );
    applied = [];
    expect((await sync('--file', 'r.csv', '--only-failed', '--map', 'Run=Labels')).code).toBe(0);
    expect(applied.map((user) => user.Labels ?? [])).toEqual([[]]);
  });

  it('an unmapped `Status` or `Note` column of an export is passed over, never refused (a night that ran goes on), and kept in the report', async () => {
    await writeFile(
      join(setup.dir, 'e.csv'),
      'ExternalId,FirstName,LastName,Email,Role,Status,Note,Department\nu1,F,L,u1@example.test,Candidate,active,new,Maths\n',
    );
    const refused = await sync('--file', 'e.csv');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown column: "Department"');
    await writeFile(
      join(setup.dir, 'e.csv'),
      'ExternalId,FirstName,LastName,Email,Role,Status,Note\nu1,F,L,u1@example.test,Candidate,active,new\n',
    );
    expect((await sync('--file', 'e.csv', '--report', 'r.csv')).code).toBe(0);
    expect((await lines('r.csv'))[1]).toMatch(/^u1,F,L,u1@example\.test,Candidate,active,new,ok,/);
  });
});
