import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctl, serveWithFaults } from '../support/faulty-serve.js';

type Item = { id: string | null; status: string };

describe('examctl user sync through local serve --faults', () => {
  it('applies every user once through 429, 503, resets, lost answers and latency', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-faults-sync-'));
    const log: string[] = [];
    const server = await serveWithFaults(dir, '429:8%,503:8%,reset:8%,lost:8%,latency:0-15ms', 11, log);
    try {
      const ids = Array.from({ length: 40 }, (_, i) => `fu-${i}`);
      const csv = ['ExternalId,FirstName,LastName,Email,Role', ...ids.map((id) => `${id},Ann,Lee,${id}@example.test,Candidate`)].join('\n');
      await writeFile(join(dir, 'users.csv'), `${csv}\n`);
      const run = await examctl(
        dir,
        ['--target', 'remote', '--base-url', server.url, '--yes', '--no-input', '--json', '--concurrency', '8', 'user', 'sync', '--file', join(dir, 'users.csv')],
        { EXAMCTL_TOKEN: 'dev-token' },
      );
      expect(run.code, run.stderr).toBe(0);
      const items = (JSON.parse(run.stdout) as { items: Item[] }).items;
      expect(items.map((item) => item.id).sort()).toEqual([...ids].sort());
      expect(items.every((item) => item.status === 'ok')).toBe(true);
      // Every kind was met on the way, so the run proves the retries rather than a lucky draw.
      for (const kind of ['429', '503', 'reset', 'lost']) expect(log.some((line) => line.includes(`fault=${kind}`)), kind).toBe(true);
    } finally {
      await server.close();
    }
    const exported = await examctl(dir, ['--target', 'local', '--store', join(dir, 'served-store'), 'local', 'export']);
    const users = (JSON.parse(exported.stdout) as { Users: { ExternalId: string }[] }).Users.filter((u) => u.ExternalId.startsWith('fu-'));
    expect(users).toHaveLength(40);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);
});
