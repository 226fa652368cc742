import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { clockFromEnv } from '../../src/engine/index.js';
import { serveLocalStore } from '../../src/server/index.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { lineWith } from '../support/facts.js';

/**
 * Plan then apply on a remote target (docs/plan.md): the remote client against `local serve` over
 * loopback. Before values come from what examctl last sent (the sync memory), every field it sent.
 */

const USERS = resolve(__dirname, '../../fixtures/users.csv');
const NOW = '2026-11-21T10:00:00Z';

interface Item {
  id: string;
  action?: string;
  changes?: { field: string; known: boolean; before?: unknown; after?: unknown }[];
}

async function remoteNight(
  dir: string,
  run: (
    cli: (args: string[], baseUrl?: string) => Promise<{ code: number; stderr: string }>,
    log: string[],
    baseUrl: string,
  ) => Promise<void>,
) {
  const log: string[] = [];
  const server = await serveLocalStore({
    storeDir: join(dir, 'served'),
    port: 0,
    now: clockFromEnv({ EXAMCTL_NOW: NOW }),
    log: (line) => log.push(line),
  });
  const env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  const cli = async (args: string[], baseUrl = server.url) => {
    const io = testDeps(dir, {}, env);
    const code = await runCli(['--target', 'remote', '--base-url', baseUrl, ...args], io.deps);
    return { code, stderr: io.stderr.text };
  };
  try {
    await run(cli, log, server.url);
  } finally {
    await server.close();
  }
}

const posts = (log: string[]) => log.filter((line) => line.startsWith('POST /api/v1/integrations/user ')).length;

describe('plan then apply on a remote target, through local serve', () => {
  it('plan names the before values examctl sent; apply sends the plan; again sends nothing; a moved memory is refused (E2601)', () =>
    withTempDir(async (dir) =>
      remoteNight(dir, async (cli, log) => {
        const lines = (await readFile(USERS, 'utf8')).trimEnd().split('\n');
        await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
        expect((await cli(['user', 'sync', '--file', 'users.csv', '--yes'])).code).toBe(0);
        // Tonight: one surname, one user's role and labels, both fields examctl sent last night.
        const tonight = [...lines];
        tonight[1] = tonight[1]!.replace('Haddad', 'Haddad-Smith');
        tonight[2] = tonight[2]!.replace(',Candidate,', ',Invigilator,').replace('cohort-2026', 'cohort-2027');
        await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
        const sync = ['user', 'sync', '--file', 'export.csv', '--changed-only'];
        const planned = await cli([...sync, '--dry-run', '--plan-out', 'plan.json']);
        expect(planned.code).toBe(0);
        const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
        expect(plan.target.kind).toBe('remote');
        const items = plan.items as Item[];
        expect(items.find((item) => item.id === 'stu-2001')!.changes).toEqual([
          { field: 'LastName', known: true, before: 'Haddad', after: 'Haddad-Smith' },
        ]);
        expect(items.find((item) => item.id === 'stu-2002')!.changes).toEqual([
          { field: 'Role', known: true, before: 'Candidate', after: 'Invigilator' },
          { field: 'Labels', known: true, before: ['cohort-2026'], after: ['cohort-2027'] },
        ]);
        // Apply: exactly the plan's two requests.
        const before = posts(log);
        expect((await cli(['apply', 'plan.json', '--yes', '--report', 'applied.json'])).code).toBe(0);
        expect(posts(log) - before).toBe(2);
        const reported = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')).items as Item[];
        expect(reported.filter((item) => item.action === 'updated').map((item) => item.id)).toEqual([
          'stu-2001',
          'stu-2002',
        ]);
        // Again: nothing sent.
        const again = await cli(['apply', 'plan.json', '--yes']);
        expect(again.code).toBe(0);
        expect(again.stderr).toContain('applied already');
        expect(posts(log) - before).toBe(2);
        // The next plan knows what apply sent: stu-2002's role is Invigilator before.
        tonight[2] = tonight[2]!.replace(',Invigilator,', ',Candidate,');
        await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
        expect((await cli([...sync, '--dry-run', '--plan-out', 'next.json'])).code).toBe(0);
        const next = JSON.parse(await readFile(join(dir, 'next.json'), 'utf8')).items as Item[];
        expect(next.find((item) => item.id === 'stu-2002')!.changes).toEqual([
          { field: 'Role', known: true, before: 'Invigilator', after: 'Candidate' },
        ]);
        // Another run sends between plan and apply: the memory moved, apply refuses and sends nothing.
        await writeFile(join(dir, 'one.csv'), `${lines[0]}\n${lines[3]!.replace('Martin', 'Martinez')}\n`);
        expect((await cli(['user', 'sync', '--file', 'one.csv', '--yes'])).code).toBe(0);
        const sent = posts(log);
        const moved = await cli(['apply', 'next.json', '--yes']);
        expect(moved.code).toBe(2);
        expect(moved.stderr).toMatch(/E2601/);
        expect(moved.stderr).toContain('sync memory');
        expect(posts(log)).toBe(sent);
      }),
    ));

  it('a plan made for one service is refused (E2601) against another, nothing sent', () =>
    withTempDir(async (dir) =>
      remoteNight(dir, async (cli, log, baseUrl) => {
        await writeFile(join(dir, 'users.csv'), await readFile(USERS, 'utf8'));
        expect((await cli(['user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'plan.json'])).code).toBe(
          0,
        );
        const other = await cli(['apply', 'plan.json', '--yes'], 'http://127.0.0.1:9/');
        expect(other.code).toBe(2);
        expect(other.stderr).toMatch(/E2601/);
        expect(other.stderr).toContain(baseUrl.replace(/\/$/, ''));
        expect(posts(log)).toBe(0);
      }),
    ));
  it('a plan records the served store head; another runner writing to it between plan and apply is refused (E2601), nothing sent', () =>
    withTempDir(async (dir) =>
      remoteNight(dir, async (_cli, log, baseUrl) => {
        // Two runners, each with its own runs directory and sync memory: A's memory does not move.
        const runner =
          (name: string) =>
          async (args: string[], token = 'dev-token') => {
            const env = {
              EXAMCTL_RUNS_DIR: join(dir, name, 'runs'),
              EXAMCTL_SYNC_DIR: join(dir, name, 'synced'),
              EXAMCTL_TOKEN: token,
            };
            const io = testDeps(dir, {}, env);
            const code = await runCli(['--target', 'remote', '--base-url', baseUrl, ...args], io.deps);
            return { code, stderr: io.stderr.text };
          };
        const [a, b] = [runner('a'), runner('b')];
        const lines = (await readFile(USERS, 'utf8')).trimEnd().split('\n');
        await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
        expect((await a(['user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'p.json'])).code).toBe(0);
        const plan = JSON.parse(await readFile(join(dir, 'p.json'), 'utf8'));
        expect(plan.store).toMatch(/^[A-Za-z0-9_-]{22}$/);
        await writeFile(join(dir, 'b.csv'), `${lines[0]}\n${lines[3]!.replace('Martin', 'Martinez')}\n`);
        expect((await b(['user', 'sync', '--file', 'b.csv', '--yes'])).code).toBe(0);
        const sent = posts(log);
        const moved = await a(['apply', 'p.json', '--yes']);
        expect(moved.code).toBe(2);
        expect(moved.stderr).toMatch(/E2601/);
        expect(moved.stderr).toContain(plan.store);
        expect(moved.stderr).toContain(baseUrl.replace(/\/$/, ''));
        expect(posts(log)).toBe(sent);
        // Nothing in between: the same head, the plan is sent whole.
        expect((await a(['user', 'sync', '--file', 'users.csv', '--dry-run', '--plan-out', 'q.json'])).code).toBe(0);
        const applied = await a(['apply', 'q.json', '--yes']);
        expect(applied.code).toBe(0);
        expect(posts(log) - sent).toBe(lines.length - 1);
        // A dry run without a token cannot ask: its plan says no head, and is refused where the store answers one.
        const c = runner('c');
        expect((await c(['user', 'sync', '--file', 'b.csv', '--dry-run', '--plan-out', 'c.json'], '')).code).toBe(0);
        expect(JSON.parse(await readFile(join(dir, 'c.json'), 'utf8')).store).toBeNull();
        const unsaid = await c(['apply', 'c.json', '--yes']);
        expect(unsaid.code).toBe(2);
        expect(unsaid.stderr).toMatch(/E2601/);
        expect(lineWith(unsaid.stderr, 'E2601')).not.toContain('sync memory');
        expect(posts(log) - sent).toBe(lines.length - 1);
      }),
    ));

  it("another runner changed users on the served store since this memory's run: their before values are not known (htry6 d4)", () =>
    withTempDir(async (dir) =>
      remoteNight(dir, async (cli, _log, baseUrl) => {
        const lines = (await readFile(USERS, 'utf8')).trimEnd().split('\n');
        await writeFile(join(dir, 'users.csv'), `${lines.join('\n')}\n`);
        expect((await cli(['user', 'sync', '--file', 'users.csv', '--yes'])).code).toBe(0);
        // Another runner (its own memory) renames stu-2001 and stu-2002 on the same store.
        const other = ['--sync-dir', join(dir, 'other-synced')];
        const renamed = [
          lines[0],
          lines[1]!.replace('Haddad', 'Other'),
          lines[2]!.replace(',Candidate,', ',Invigilator,'),
        ];
        await writeFile(join(dir, 'other.csv'), `${renamed.join('\n')}\n`);
        const b = testDeps(dir, {}, { EXAMCTL_RUNS_DIR: join(dir, 'runs-b'), EXAMCTL_TOKEN: 'dev-token' });
        expect(
          await runCli(
            ['--target', 'remote', '--base-url', baseUrl, 'user', 'sync', '--file', 'other.csv', ...other, '--yes'],
            b.deps,
          ),
          b.stderr.text,
        ).toBe(0);
        // Tonight: stu-2001's surname changes again, stu-2002 is as the memory last sent it.
        const tonight = [...lines];
        tonight[1] = tonight[1]!.replace('Haddad', 'Haddad-Smith');
        await writeFile(join(dir, 'export.csv'), `${tonight.join('\n')}\n`);
        const planned = await cli([
          'user',
          'sync',
          '--file',
          'export.csv',
          '--changed-only',
          '--dry-run',
          '--plan-out',
          'plan.json',
        ]);
        expect(planned.code, planned.stderr).toBe(0);
        const items = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')).items as Item[];
        const first = items.find((item) => item.id === 'stu-2001')!;
        expect(first.action).toBe('update');
        // The store holds "Other", not the "Haddad" this memory sent: not known, never a false before.
        expect(first.changes).toContainEqual({ field: 'LastName', known: false, after: 'Haddad-Smith' });
        const second = items.find((item) => item.id === 'stu-2002')!;
        expect(second.action).toBe('update');
        expect(second.changes).toContainEqual({ field: 'Role', known: false, after: 'Candidate' });
        expect(second.changes!.every((change) => !change.known)).toBe(true);
      }),
    ));
});
