import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineWith } from '../support/facts.js';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { okEnvelope, startFaultServer } from '../support/fault-server.js';

/**
 * Trial 19, f06 and f04: a resume of a killed `--disable-missing` night keeps the leavers its
 * journal holds, at their positions. One a later run took since (another population's now, or
 * acknowledged present) is left alone, said, never disabled; the others are disabled. It was
 * rebuilt from today's memory and met the journal only after sending: "run journal damaged", exit 2.
 */
const HEADER = 'ExternalId,FirstName,LastName,Email,UserName,Role';
const row = (id: string, mail = id) => `${id},F,L,${mail}@example.test,${id}-name,Candidate`;

async function nights(dir: string) {
  const api = await startFaultServer();
  const service = { refuseAfter: Infinity };
  const sent: { ExternalId: string; DisableLogin?: boolean }[] = [];
  api.fallback = (request) => {
    const user = JSON.parse(request.body) as { ExternalId: string; DisableLogin?: boolean };
    // The token revoked (401): the run stops, exit 3, resumable, its leavers on record as sent ahead.
    if (sent.length >= service.refuseAfter)
      return {
        status: 401,
        body: { Content: null, Success: false, Errors: [{ Code: 401, Message: 'token revoked' }] },
      };
    sent.push(user);
    return okEnvelope({ User: { ExternalId: user.ExternalId }, GroupErrors: [] });
  };
  const cli = async (argv: string[]) => {
    const io = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' });
    return {
      code: await runCli(argv, io.deps),
      stdout: io.stdout.text,
      stderr: io.stderr.text,
      run: /run (\S+) \(examctl runs show/.exec(io.stderr.text)?.[1] ?? '',
    };
  };
  const remote = ['--target', 'remote', '--base-url', api.url, '--allow-insecure-http', '--yes', '--concurrency', '1'];
  const night = (file: string, rows: string[], population?: string) => {
    writeFileSync(join(dir, file), `${[HEADER, ...rows].join('\n')}\n`);
    return cli([
      'user',
      'sync',
      '--file',
      file,
      ...remote,
      ...(population === undefined ? [] : ['--population', population]),
      '--changed-only',
      '--disable-missing',
      '--max-disable',
      '50%',
    ]);
  };
  const resume = (run: string, ...more: string[]) =>
    cli(['runs', 'resume', run, '--base-url', api.url, '--allow-insecure-http', '--yes', '--json', ...more]);
  const memory = () => {
    const synced = join(dir, 'synced');
    return readFileSync(join(synced, readdirSync(synced)[0]!, 'users.ndjson'), 'utf8');
  };
  return { api, service, sent, night, resume, memory };
}

type Item = { id: string; status: string; action?: string; note?: string };
const itemsOf = (stdout: string) => (JSON.parse(stdout) as { items: Item[] }).items;

describe('runs resume of a --disable-missing night keeps its recorded leavers', () => {
  it('f06: a leaver the other population took since is left alone, the other leaver disabled, exit 0', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, night, resume } = await nights(dir);
      try {
        expect(
          (
            await night(
              'students.csv',
              ['u-0', 'u-1', 'u-2', 'u-3', 'm-1'].map((id) => row(id)),
              'students',
            )
          ).code,
        ).toBe(0);
        expect(
          (
            await night(
              'staff.csv',
              ['s-0', 's-1'].map((id) => row(id)),
              'staff',
            )
          ).code,
        ).toBe(0);
        // Night 1: u-0's email changed, u-3 left, m-1 moved to the staff export. Stopped after u-0.
        service.refuseAfter = sent.length + 1;
        const killed = await night('students.csv', [row('u-0', 'u-0.v1'), row('u-1'), row('u-2')], 'students');
        expect(killed.code, killed.stderr).toBe(3);
        service.refuseAfter = Infinity;
        expect(
          (
            await night(
              'staff.csv',
              ['s-0', 's-1', 'm-1'].map((id) => row(id)),
              'staff',
            )
          ).code,
        ).toBe(0);
        const before = sent.length;
        const resumed = await resume(killed.run);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).not.toContain('damaged');
        expect(resumed.stderr).toContain(
          `runs resume: 1 leaver of run ${killed.run} not disabled by this resume: m-1 (synced by --population staff since)`,
        );
        expect(
          sent
            .slice(before)
            .filter((user) => user.DisableLogin === true)
            .map((user) => user.ExternalId),
        ).toEqual(['u-3']);
        const items = itemsOf(resumed.stdout).slice(3);
        expect(items.map((item) => [item.id, item.status, item.action])).toEqual([
          ['m-1', 'ok', 'left'],
          ['u-3', 'ok', 'disabled'],
        ]);
        expect(items[0]!.note).toBe('not disabled by this resume: synced by --population staff since');
      } finally {
        await api.close();
      }
    }));

  it("a leaver the run disabled before it stopped, then the other population's: its kept outcome stands, the memory keeps it as that population's", () =>
    withTempDir(async (dir) => {
      const { api, service, sent, night, resume, memory } = await nights(dir);
      try {
        expect(
          (
            await night(
              'students.csv',
              ['u-0', 'u-3', 'm-1'].map((id) => row(id)),
              'students',
            )
          ).code,
        ).toBe(0);
        expect(
          (
            await night(
              'staff.csv',
              ['s-0', 's-1'].map((id) => row(id)),
              'staff',
            )
          ).code,
        ).toBe(0);
        // m-1's disable is acknowledged, u-3's refused (401): the run stops.
        service.refuseAfter = sent.length + 1;
        const killed = await night('students.csv', [row('u-0')], 'students');
        expect(killed.code, killed.stderr).toBe(3);
        service.refuseAfter = Infinity;
        expect(
          (
            await night(
              'staff.csv',
              ['s-0', 's-1', 'm-1'].map((id) => row(id)),
              'staff',
            )
          ).code,
        ).toBe(0);
        expect(sent.at(-1)).toMatchObject({ ExternalId: 'm-1', DisableLogin: false });
        const resumed = await resume(killed.run);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(
          itemsOf(resumed.stdout)
            .slice(1)
            .map((item) => [item.id, item.action]),
        ).toEqual([
          ['m-1', 'disabled'],
          ['u-3', 'disabled'],
        ]);
        expect(resumed.stderr).not.toContain('left alone');
        const last = memory()
          .trimEnd()
          .split('\n')
          .map((line) => (JSON.parse(line) as { b: { id?: string; p?: string; x?: boolean } }).b)
          .filter((body) => body.id === 'm-1')
          .at(-1);
        expect(last).toMatchObject({ p: 'staff' });
        expect(last?.x).toBeUndefined();
      } finally {
        await api.close();
      }
    }));

  it('f04: a night without --population, then the same export as --population students: its leaver back there is left alone', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, night, resume } = await nights(dir);
      try {
        const ids = ['u-1', 'u-2', 'u-3', 'u-4', 'u-5', 'u-6'];
        expect(
          (
            await night(
              'n.csv',
              ids.map((id) => row(id)),
            )
          ).code,
        ).toBe(0);
        service.refuseAfter = sent.length + 1;
        const killed = await night('n1.csv', [row('u-1', 'u-1.v1'), row('u-2'), row('u-3'), row('u-4')]);
        expect(killed.code, killed.stderr).toBe(3);
        service.refuseAfter = Infinity;
        // The job now names its population; u-5 is back in the export.
        expect(
          (
            await night(
              'n2.csv',
              ['u-1', 'u-2', 'u-3', 'u-4', 'u-5'].map((id) => row(id)),
              'students',
            )
          ).code,
        ).toBe(0);
        const before = sent.length;
        const resumed = await resume(killed.run);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(lineWith(resumed.stderr, 'not disabled', 'u-5', '--population students')).toBeTruthy();
        expect(
          sent
            .slice(before)
            .filter((user) => user.DisableLogin === true)
            .map((user) => user.ExternalId),
        ).toEqual(['u-6']);
        expect(
          itemsOf(resumed.stdout)
            .slice(4)
            .map((item) => [item.id, item.action]),
        ).toEqual([
          ['u-5', 'left'],
          ['u-6', 'disabled'],
        ]);
      } finally {
        await api.close();
      }
    }));

  it('a leaver a later night of the same population acknowledged present is left alone (--over-later-runs)', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, night, resume } = await nights(dir);
      try {
        expect(
          (
            await night(
              'n.csv',
              ['u-1', 'u-2', 'u-3'].map((id) => row(id)),
              'p',
            )
          ).code,
        ).toBe(0);
        service.refuseAfter = sent.length + 1;
        const killed = await night('n1.csv', [row('u-1', 'u-1.v1')], 'p');
        expect(killed.code, killed.stderr).toBe(3);
        service.refuseAfter = Infinity;
        // Night 2: u-2 disabled as its leaver, u-3 back.
        expect((await night('n2.csv', [row('u-1', 'u-1.v1'), row('u-3')], 'p')).code).toBe(0);
        const before = sent.length;
        const resumed = await resume(killed.run, '--over-later-runs');
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stderr).toMatch(
          /runs resume: 2 leavers of run \S+ not disabled by this resume: u-2 \(run \S+ disabled it since\); u-3 \(run \S+ synced it since\)/,
        );
        expect(sent.length).toBe(before);
        expect(
          itemsOf(resumed.stdout)
            .slice(1)
            .map((item) => [item.id, item.action]),
        ).toEqual([
          ['u-2', 'left'],
          ['u-3', 'left'],
        ]);
      } finally {
        await api.close();
      }
    }));

  it('leavers out of place in the journal: refused before anything is sent, the sync memory as it was', () =>
    withTempDir(async (dir) => {
      const { api, service, sent, night, resume, memory } = await nights(dir);
      try {
        expect(
          (
            await night(
              'n.csv',
              ['u-1', 'u-2', 'u-3', 'u-4'].map((id) => row(id)),
              'p',
            )
          ).code,
        ).toBe(0);
        service.refuseAfter = sent.length + 1;
        const killed = await night('n1.csv', [row('u-1', 'u-1.v1'), row('u-2')], 'p');
        expect(killed.code, killed.stderr).toBe(3);
        service.refuseAfter = Infinity;
        // Item 2, the first leaver, taken out of the journal: a gap before u-4, item 3.
        const journal = join(dir, 'runs', killed.run, 'journal.ndjson');
        writeFileSync(
          journal,
          readFileSync(journal, 'utf8')
            .split('\n')
            .filter((line) => !line.includes('"n":2,'))
            .join('\n'),
        );
        const held = memory();
        const before = sent.length;
        const resumed = await resume(killed.run);
        expect(resumed.code).toBe(2);
        expectCoded(resumed.stderr, 'E2200', `run ${killed.run}: `, 'after item 2', 'nothing was sent');
        expect(sent.length).toBe(before);
        expect(memory()).toBe(held);
      } finally {
        await api.close();
      }
    }));
});
