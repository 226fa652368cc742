import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, examctl } from '../durability/helpers.js';

/**
 * What the sync memory remembers must be what was sent, to the store that was sent to
 * (docs/sync.md, "The sync memory"): a hierarchy id holding `:` or a flag word is remembered
 * as itself (QA D1), and a memory of a replaced local store is not used (QA D2).
 */

interface Membership {
  ExternalId: string;
  Action?: string;
  IsCoordinator?: boolean;
}

const person = (id: string, hierarchies: Membership[]) => ({ ExternalId: id, FirstName: 'A', LastName: 'B', Role: 'Candidate', Hierarchies: hierarchies });
// Night 1: c-1 coordinator of SCH:MATH and in G+1|x; c-2 in SCH:coordinator. Night 2: c-1 only in SCH:MATH (no flag), c-2 only in SCH.
const NIGHT1 = [person('c-1', [{ ExternalId: 'SCH:MATH', IsCoordinator: true }, { ExternalId: 'G+1|x' }]), person('c-2', [{ ExternalId: 'SCH:coordinator' }])];
const NIGHT2 = [person('c-1', [{ ExternalId: 'SCH:MATH' }]), person('c-2', [{ ExternalId: 'SCH' }])];
const PRUNE = ['--changed-only', '--prune-memberships'];

let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-memory-identity-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'state', 'runs'), EXAMCTL_TOKEN: 'dev-token' };
  writeFileSync(join(dir, 'night1.json'), JSON.stringify(NIGHT1));
  writeFileSync(join(dir, 'night2.json'), JSON.stringify(NIGHT2));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a hierarchy id holding ":" or a flag word (QA D1)', () => {
  it('remote: the second night deletes exactly the links sent and revokes the flag sent, nothing else', async () => {
    const sent: { ExternalId: string; Hierarchies?: Membership[] }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const user = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ExternalId: string; Hierarchies?: Membership[] };
        sent.push(user);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ Content: { User: { ExternalId: user.ExternalId }, GroupErrors: [] }, Success: true, Errors: null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const sync = (file: string) => examctl(['user', 'sync', '--file', file, '--target', 'remote', '--base-url', url, '--allow-insecure-http', '--yes', '--json', ...PRUNE], dir, env);
      expect((await sync('night1.json')).code).toBe(0);
      sent.length = 0;
      const second = await sync('night2.json');
      expect(second.code, second.stderr).toBe(0);
      expect(sent.map((user) => [user.ExternalId, user.Hierarchies])).toEqual([
        ['c-1', [{ ExternalId: 'SCH:MATH', IsCoordinator: false }, { ExternalId: 'G+1|x', Action: 'DELETE' }]],
        ['c-2', [{ ExternalId: 'SCH' }, { ExternalId: 'SCH:coordinator', Action: 'DELETE' }]],
      ]);
      sent.length = 0;
      expect((await sync('night2.json')).code).toBe(0);
      expect(sent).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('local: a link another tool gave (SCH) is kept; the coordinator examctl gave on SCH:MATH is revoked; SCH:coordinator is deleted', async () => {
    const world = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'world.json'), 'utf8')) as { Hierarchies: unknown[]; Users: unknown[] };
    for (const id of ['SCH', 'SCH:MATH', 'SCH:coordinator', 'G+1|x']) world.Hierarchies.push({ ExternalId: id, Title: id, Parent: 'root', Active: true });
    writeFileSync(join(dir, 'world.json'), JSON.stringify(world));
    expect((await examctl(['local', 'init', '--store', 'store', '--seed', 'world.json'], dir, env)).code).toBe(0);
    const sync = (file: string) => examctl(['user', 'sync', '--file', file, '--target', 'local', '--store', 'store', '--json', ...PRUNE], dir, env);
    expect((await sync('night1.json')).code).toBe(0);
    // Another tool gives c-1 the link SCH (an UPSERT keeps the others).
    writeFileSync(join(dir, 'other.json'), JSON.stringify([person('c-1', [{ ExternalId: 'SCH', IsCoordinator: true }])]));
    expect((await examctl(['user', 'sync', '--file', 'other.json', '--target', 'local', '--store', 'store', '--sync-dir', join(dir, 'other-tool')], dir, env)).code).toBe(0);
    const second = await sync('night2.json');
    expect(second.code, second.stderr).toBe(0);
    const exported = await examctl(['local', 'export', '--store', 'store'], dir, env);
    const users = new Map((JSON.parse(exported.stdout) as { Users: { ExternalId: string; Hierarchies?: Membership[] }[] }).Users.map((user) => [user.ExternalId, user]));
    const links = (id: string) => (users.get(id)?.Hierarchies ?? []).map((h) => `${h.ExternalId}${h.IsCoordinator === true ? ' (coordinator)' : ''}`).sort();
    expect(links('c-1')).toEqual(['SCH (coordinator)', 'SCH:MATH']);
    expect(links('c-2')).toEqual(['SCH']);
  });
});
