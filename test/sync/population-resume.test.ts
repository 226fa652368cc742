import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectCoded } from '../support/coded-message.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/**
 * docs/ci.md's two-population night: the staff step stopped by the target (exit 3, resumable),
 * the students step run after it (the recipe runs it whatever the staff step did), then the staff
 * step resumed. The students' run is later, but of another population: it sent another export's
 * users, so it does not make the staff run stale (docs/runs.md, "runs resume").
 */
const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const rows = (prefix: string, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `${prefix}-${i},F,L${i},${prefix}${i}@example.test,${prefix}-name-${i},Candidate`,
  );

/**
 * A service that takes users until `refuseAfter` were sent, then refuses the token (401: the run
 * stops, exit 3, resumable); `cli` runs examctl in `dir` on the runs directory `runs`.
 */
async function refusingService(dir: string) {
  const api = await startFaultServer();
  const service = { refuseAfter: 2 };
  const sent: string[] = [];
  api.fallback = (request) => {
    const id = (JSON.parse(request.body) as { ExternalId: string }).ExternalId;
    if (sent.length >= service.refuseAfter)
      return {
        status: 401,
        body: { Content: null, Success: false, Errors: [{ Code: 401, Message: 'token revoked' }] },
      };
    sent.push(id);
    return okEnvelope({ User: { ExternalId: id }, GroupErrors: [] });
  };
  const cli = async (argv: string[], env: Record<string, string> = {}) => {
    const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token', ...env });
    return {
      code: await runCli(argv, io.deps),
      stdout: io.stdout.text,
      stderr: io.stderr.text,
      run: /run (\S+) \(examctl runs show/.exec(io.stderr.text)?.[1] ?? '',
    };
  };
  return { api, service, sent, cli };
}

describe('runs resume of one population after another population ran', () => {
  it('is not refused for a later run of another --population; a later run of the same population still refuses it', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, cli } = await refusingService(dir);
      try {
        const remote = [
          '--target',
          'remote',
          '--base-url',
          api.url,
          '--allow-insecure-http',
          '--yes',
          '--concurrency',
          '1',
        ];
        writeFileSync(join(dir, 'staff.csv'), `${[HEADER, ...rows('stf', 5)].join('\n')}\n`);
        writeFileSync(join(dir, 'students.csv'), `${[HEADER, ...rows('stu', 3)].join('\n')}\n`);
        const night = (population: string) => [
          'user',
          'sync',
          '--file',
          `${population}.csv`,
          ...remote,
          '--population',
          population,
          '--changed-only',
          '--disable-missing',
        ];
        const staff = await cli(night('staff'));
        expect(staff.code).toBe(3);
        service.refuseAfter = Infinity;
        expect((await cli(night('students'))).code).toBe(0);
        // By its id: without one, runs resume takes only the newest run (the students' finished).
        const resumed = await cli([
          'runs',
          'resume',
          staff.run,
          '--base-url',
          api.url,
          '--allow-insecure-http',
          '--yes',
        ]);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(sent.filter((id) => id.startsWith('stf')).sort()).toEqual(['stf-0', 'stf-1', 'stf-2', 'stf-3', 'stf-4']);

        // The same population's later night makes an older staff run stale.
        writeFileSync(join(dir, 'staff.csv'), `${[HEADER, ...rows('stf', 5), ...rows('new', 2)].join('\n')}\n`);
        service.refuseAfter = sent.length + 1;
        const older = await cli(night('staff'));
        expect(older.code).toBe(3);
        service.refuseAfter = Infinity;
        expect((await cli(night('staff'))).code).toBe(0);
        const stale = await cli(['runs', 'resume', older.run, '--base-url', api.url, '--allow-insecure-http', '--yes']);
        expect(stale.code).toBe(2);
        expectCoded(stale.stderr, 'E2202', `run ${older.run}`, 'user sync');
      } finally {
        await api.close();
      }
    }));
});

describe('created or updated on a remote target, by population', () => {
  it("another population's memory says nothing of this export's users: sent, not created; the next run of the same population says updated", () =>
    withTempDir(async (dir) => {
      const api = await startFaultServer();
      try {
        api.fallback = (request) =>
          okEnvelope({
            User: { ExternalId: (JSON.parse(request.body) as { ExternalId: string }).ExternalId },
            GroupErrors: [],
          });
        const cli = async (argv: string[]) => {
          const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' });
          const code = await runCli([...argv, '--json'], io.deps);
          return {
            code,
            actions: (JSON.parse(io.stdout.text) as { items: { action?: string }[] }).items.map((item) => item.action),
          };
        };
        const remote = ['--target', 'remote', '--base-url', api.url, '--allow-insecure-http', '--yes'];
        writeFileSync(join(dir, 'staff.csv'), `${[HEADER, ...rows('stf', 2)].join('\n')}\n`);
        writeFileSync(join(dir, 'students.csv'), `${[HEADER, ...rows('stu', 2)].join('\n')}\n`);
        const sync = (population: string) =>
          cli(['user', 'sync', '--file', `${population}.csv`, ...remote, '--population', population]);
        expect(await sync('staff')).toEqual({ code: 0, actions: ['sent', 'sent'] });
        expect(await sync('students')).toEqual({ code: 0, actions: ['sent', 'sent'] });
        expect(await sync('students')).toEqual({ code: 0, actions: ['updated', 'updated'] });
        writeFileSync(join(dir, 'students.csv'), `${[HEADER, ...rows('stu', 3)].join('\n')}\n`);
        expect(await sync('students')).toEqual({ code: 0, actions: ['updated', 'updated', 'created'] });
      } finally {
        await api.close();
      }
    }));
});

/**
 * Trial 10, F07: a run that used the default sync directory, resumed in a job whose
 * EXAMCTL_SYNC_DIR names another one, feeds the memory it used (its journal's header records the
 * place, the default one too); it was refused as "the memory was lost since", or fed the other.
 */
describe('runs resume and the sync memory the run used', () => {
  it('feeds the default memory the run fed, whatever EXAMCTL_SYNC_DIR names now', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, cli } = await refusingService(dir);
      try {
        writeFileSync(join(dir, 'users.csv'), `${[HEADER, ...rows('u', 5)].join('\n')}\n`);
        const remote = [
          '--target',
          'remote',
          '--base-url',
          api.url,
          '--allow-insecure-http',
          '--yes',
          '--concurrency',
          '1',
        ];
        const first = await cli(['user', 'sync', '--file', 'users.csv', ...remote, '--changed-only']);
        expect(first.code, first.stderr).toBe(3);
        service.refuseAfter = Infinity;
        const other = { EXAMCTL_SYNC_DIR: join(dir, 'other') };
        const resumed = await cli(['runs', 'resume', first.run, '--base-url', api.url, '--allow-insecure-http'], other);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).not.toContain('the memory was lost');
        expect(sent.sort()).toEqual(['u-0', 'u-1', 'u-2', 'u-3', 'u-4']);
        const memories = async (env: Record<string, string>) =>
          (
            JSON.parse((await cli(['--json', 'synced', 'show'], env)).stdout) as {
              memories: { kind: string; count?: number }[];
            }
          ).memories;
        expect(await memories(other)).toEqual([]);
        expect(JSON.stringify(await memories({}))).toContain(first.run);
        // The place is the header's (the default one too); `options` keeps only a place given.
        const header = JSON.parse(
          readFileSync(join(dir, 'runs', first.run, 'journal.ndjson'), 'utf8').split('\n')[0]!,
        ) as { b: { syncDir?: string; options: object } };
        expect(header.b.syncDir).toBe(join(dir, 'synced'));
        expect(header.b.options).not.toHaveProperty('syncDir');
      } finally {
        await api.close();
      }
    }));
});
