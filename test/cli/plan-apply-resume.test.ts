import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clockFromEnv } from '../../src/engine/index.js';
import { serveLocalStore } from '../../src/server/index.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { PINNED_NOW } from '../support/cli.js';
import { withTempDir } from './helpers.js';
import { expectCoded } from '../support/coded-message.js';
import { lineWith, summaryOf } from '../support/facts.js';
import { checkedLineBodies } from '../support/checked-lines.js';
import { encodeChecksummedLine } from '../../src/system/checksummed-line.js';

/**
 * An apply interrupted at a marker (EXAMCTL_TEST_SIGNAL_AFTER, docs/runs.md), then `runs resume`:
 * the resume sends the plan's requests the interrupted run did not, and nothing else (docs/plan.md).
 * Remote, through `local serve`, so the server's log counts what each run sent.
 */

const USERS = 400;
/** Users enough that the last is past what an apply killed at its 100th answer put on record as sent. */
const MANY = 1000;

interface Item {
  id: string;
  action?: string;
  status?: string;
}

const csv = (suffix: string, users = USERS) =>
  `ExternalId,FirstName,LastName,Email,Role\n${Array.from(
    { length: users },
    (_, i) => `u-${String(i + 1).padStart(4, '0')},Ada,Ng${i + 1}${suffix},u${i + 1}@example.test,Candidate`,
  ).join('\n')}\n`;

describe('an interrupted apply, resumed', () => {
  it('runs resume sends exactly the rest of the plan, from the plan (the export changed since)', () =>
    withTempDir(async (dir) => {
      const log: string[] = [];
      const server = await serveLocalStore({
        storeDir: join(dir, 'served'),
        port: 0,
        now: clockFromEnv({ EXAMCTL_NOW: PINNED_NOW }),
        log: (line) => log.push(line),
      });
      const posts = () => log.filter((line) => line.startsWith('POST /api/v1/integrations/user 200')).length;
      try {
        const env = {
          EXAMCTL_RUNS_DIR: join(dir, 'runs'),
          EXAMCTL_TOKEN: 'dev-token',
          EXAMCTL_TARGET: 'remote',
          EXAMCTL_BASE_URL: server.url,
        };
        await writeFile(join(dir, 'users.csv'), csv(''));
        expect((await examctl(['--yes', 'user', 'sync', '--file', 'users.csv'], dir, env)).code).toBe(0);
        // Tonight every surname changes.
        await writeFile(join(dir, 'export.csv'), csv('-Lee'));
        const sync = ['user', 'sync', '--file', 'export.csv', '--changed-only'];
        const planned = await examctl([...sync, '--dry-run', '--plan-out', 'plan.json'], dir, env);
        expect(planned.code, planned.stderr).toBe(0);
        const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
        expect(plan.counts).toEqual({ update: USERS });
        // The apply stops (SIGTERM, as a real signal) after its 100th answer: in-flight work finishes.
        const before = posts();
        const stopped = await examctl(['--yes', 'apply', 'plan.json'], dir, {
          ...env,
          EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGTERM',
        });
        expect(stopped.stderr).toContain('E1300');
        const shown = JSON.parse((await examctl(['--json', 'runs', 'show', 'last'], dir, env)).stdout) as {
          run: string;
          summary: { ok: number; skipped: number };
        };
        const sentByApply = posts() - before;
        expect(shown.summary.ok).toBe(sentByApply);
        expect(shown.summary.skipped).toBe(USERS - sentByApply);
        expect(sentByApply).toBeGreaterThanOrEqual(100);
        expect(sentByApply).toBeLessThan(USERS);
        // Before the resume the export changes again: the resume reads the plan's copy, not it.
        await writeFile(join(dir, 'export.csv'), 'ExternalId,FirstName,LastName\n');
        const resumed = await examctl(['--yes', 'runs', 'resume', shown.run, '--report', 'resumed.json'], dir, env);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(posts() - before).toBe(USERS);
        const items = JSON.parse(await readFile(join(dir, 'resumed.json'), 'utf8')).items as Item[];
        expect(items.filter((item) => item.action === 'updated')).toHaveLength(USERS);
        // The target holds the plan: the same export, planned again, changes nothing.
        await writeFile(join(dir, 'export.csv'), csv('-Lee'));
        const check = await examctl([...sync, '--dry-run', '--json'], dir, env);
        const after = JSON.parse(check.stdout) as { items: Item[] };
        expect(after.items.filter((item) => item.action !== 'unchanged')).toEqual([]);
      } finally {
        await server.close();
      }
    }));

  it("an apply to the plan's remote target killed, applied again: E2602 names the resume that goes there, which does", () =>
    withTempDir(async (dir) => {
      const server = await serveLocalStore({
        storeDir: join(dir, 'served'),
        port: 0,
        now: clockFromEnv({ EXAMCTL_NOW: PINNED_NOW }),
      });
      try {
        // The target is the plan's: apply and what it says are typed without a base URL, as docs/plan.md shows.
        const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' };
        await writeFile(join(dir, 'users.csv'), csv(''));
        const planned = await examctl(
          ['--base-url', server.url, 'user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'plan.json'],
          dir,
          env,
        );
        expect(planned.code, planned.stderr).toBe(0);
        const killed = await examctl(['apply', 'plan.json'], dir, {
          ...env,
          EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
        });
        expect(killed.signal).toBe('SIGKILL');
        const again = await examctl(['apply', 'plan.json'], dir, env);
        expect(again.code).toBe(2);
        expectCoded(again.stderr, 'E2602', 'plan.json');
        const said = /examctl (runs resume [^;:]*?) sends the rest/.exec(again.stderr)?.[1];
        expect(said, again.stderr).toBeDefined();
        const resumed = await examctl(said!.split(' '), dir, env);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(summaryOf(resumed.stderr)).toMatchObject({ ok: USERS, failed: 0, skipped: 0 });
      } finally {
        await server.close();
      }
    }));

  it('a resumed apply names the file as reviewed (in/export.csv:N), not its kept copy; an older journal, the copy', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const store = ['--store', join(dir, 'store')];
      expect((await examctl([...store, 'local', 'init'], dir, env)).code).toBe(0);
      // The last row is invalid: the apply is killed before it, the resume reports it.
      const rows = csv('').trimEnd().split('\n');
      rows[USERS] = rows[USERS]!.replace('@example.test', '(at)example.test');
      await mkdir(join(dir, 'in'));
      await writeFile(join(dir, 'in', 'export.csv'), `${rows.join('\n')}\n`);
      const sync = [...store, 'user', 'sync', '--file', 'in/export.csv'];
      expect((await examctl([...sync, '--dry-run', '--plan-out', 'plan.json'], dir, env)).code).toBe(1);
      const stopped = await examctl([...store, 'apply', 'plan.json'], dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
      });
      expect(stopped.signal).toBe('SIGKILL');
      const run = /run (\S+) \(examctl runs show/.exec(stopped.stderr)?.[1];
      const journal = join(dir, 'runs', run!, 'journal.ndjson');
      const kept = await readFile(journal, 'utf8');
      const sources = async (report: string) =>
        new Set(
          (JSON.parse(await readFile(join(dir, report), 'utf8')).items as { source: { file: string } }[]).map(
            (item) => item.source.file,
          ),
        );
      const last = `[u-${String(USERS).padStart(4, '0')}]`;
      // `runs show` reads the rows the kill left unreached again: from the copy, under the reviewed name.
      await examctl(['runs', 'show', run!, '--report', 'shown.json'], dir, env);
      expect(await sources('shown.json')).toEqual(new Set(['in/export.csv']));

      // The journal as an older examctl wrote it (no `name` in its input): its rows name the copy, as they did.
      const [header, ...rest] = kept.trimEnd().split('\n');
      const body = checkedLineBodies(header!)[0] as { input: Record<string, unknown> };
      expect(body.input.name).toBe('in/export.csv');
      delete body.input.name;
      await writeFile(journal, `${encodeChecksummedLine(JSON.stringify(body))}${rest.join('\n')}\n`);
      await examctl(['runs', 'show', run!, '--report', 'older.json'], dir, env);
      expect([...(await sources('older.json'))].some((file) => file.includes(join('runs', 'plans')))).toBe(true);
      await writeFile(journal, kept);

      const resumed = await examctl(['runs', 'resume', run!, '--report', 'resumed.json'], dir, env);
      expect(resumed.code, resumed.stderr).toBe(1);
      expect(lineWith(resumed.stderr, last)).toContain(` in/export.csv:${USERS + 1} `);
      expect(await sources('resumed.json')).toEqual(new Set(['in/export.csv']));
    }));

  it("a resumed apply sends only the plan's requests: one a later run changed is not sent (9024), even --over-later-runs", () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const store = ['--store', join(dir, 'store')];
      expect((await examctl([...store, 'local', 'init'], dir, env)).code).toBe(0);
      const linked = (text: string, hierarchy: string) =>
        text.replace('Role\n', 'Role,Hierarchies\n').replace(/Candidate$/gm, `Candidate,${hierarchy}`);
      const sync = [...store, 'user', 'sync', '--changed-only', '--prune-memberships', '--file'];
      await writeFile(join(dir, 'users.csv'), linked(csv('', MANY), 'H-NORTH'));
      expect((await examctl([...sync, 'users.csv'], dir, env)).code).toBe(0);
      await writeFile(join(dir, 'export.csv'), linked(csv('-Lee', MANY), 'H-NORTH'));
      expect((await examctl([...sync, 'export.csv', '--dry-run', '--plan-out', 'plan.json'], dir, env)).code).toBe(0);
      const stopped = await examctl([...store, 'apply', 'plan.json'], dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
      });
      expect(stopped.signal).toBe('SIGKILL');
      const run = /run (\S+) \(examctl runs show/.exec(stopped.stderr)?.[1];
      // Past what the killed attempt put on record as sent (docs/runs.md, "Sent ahead"): it never went.
      // Another run gives the plan's last user a link the plan never saw: its request now would prune it.
      const last = `u-${String(MANY).padStart(4, '0')}`;
      await writeFile(
        join(dir, 'other.csv'),
        `ExternalId,FirstName,LastName,Email,Role,Hierarchies\n${last},Ada,Other,x@example.test,Candidate,H-SOUTH\n`,
      );
      expect((await examctl([...store, 'user', 'sync', '--file', 'other.csv'], dir, env)).code).toBe(0);
      const resumed = await examctl(
        ['runs', 'resume', run!, '--over-later-runs', '--report', 'resumed.json'],
        dir,
        env,
      );
      expect(resumed.code, resumed.stderr).toBe(1);
      const items = JSON.parse(await readFile(join(dir, 'resumed.json'), 'utf8')).items as (Item & {
        errors: { code: number }[];
      })[];
      expect(items.filter((item) => item.status !== 'ok').map((item) => [item.id, item.errors[0]?.code])).toEqual([
        [last, 9024],
      ]);
      const world = JSON.parse((await examctl([...store, 'local', 'export'], dir, env)).stdout) as {
        Users: { ExternalId: string; LastName: string; Hierarchies: { ExternalId: string }[] }[];
      };
      const user = world.Users.find((entry) => entry.ExternalId === last)!;
      expect([user.LastName, user.Hierarchies.map((link) => link.ExternalId)]).toEqual([
        'Other',
        ['H-NORTH', 'H-SOUTH'],
      ]);
    }));

  it('a resumed apply whose kept plan is gone is refused (E2601, naming runs/plans/<id>/plan.json), nothing sent', () =>
    withTempDir(async (dir) => {
      const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced') };
      const store = ['--store', join(dir, 'store')];
      expect((await examctl([...store, 'local', 'init'], dir, env)).code).toBe(0);
      const sync = [...store, 'user', 'sync', '--changed-only', '--file'];
      await writeFile(join(dir, 'users.csv'), csv(''));
      expect((await examctl([...sync, 'users.csv'], dir, env)).code).toBe(0);
      await writeFile(join(dir, 'export.csv'), csv('-Lee'));
      expect((await examctl([...sync, 'export.csv', '--dry-run', '--plan-out', 'plan.json'], dir, env)).code).toBe(0);
      const planId = (JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { id: string }).id;
      const stopped = await examctl([...store, 'apply', 'plan.json'], dir, {
        ...env,
        EXAMCTL_TEST_SIGNAL_AFTER: 'outcome:100:SIGKILL',
      });
      expect(stopped.signal).toBe('SIGKILL');
      const run = /run (\S+) \(examctl runs show/.exec(stopped.stderr)?.[1];
      const kept = join(dir, 'runs', 'plans', planId, 'plan.json');
      const renamed = async () => {
        const world = JSON.parse((await examctl([...store, 'local', 'export'], dir, env)).stdout) as {
          Users: { LastName: string }[];
        };
        return world.Users.filter((user) => user.LastName.endsWith('-Lee')).length;
      };
      const sent = await renamed();
      await rm(kept);
      const resumed = await examctl(['runs', 'resume', run!], dir, env);
      expect(resumed.code).toBe(2);
      expectCoded(resumed.stderr, 'E2601', kept);
      expect(await renamed()).toBe(sent);
      expect(sent).toBeLessThan(USERS);
    }));
});
