import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examctl, resumeUntilDone, serveWithFaults } from '../support/faulty-serve.js';

type Item = { id: string | null; status: string };

describe('examctl user sync through local serve --faults', () => {
  it('applies every user once through 429, 503, resets, lost answers and latency', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-faults-sync-'));
    const log: string[] = [];
    const server = await serveWithFaults(dir, '429:8%,503:8%,reset:8%,lost:8%,latency:0-15ms', 11, log);
    try {
      const ids = Array.from({ length: 40 }, (_, i) => `fu-${i}`);
      const csv = [
        'ExternalId,FirstName,LastName,Email,Role',
        ...ids.map((id) => `${id},Ann,Lee,${id}@example.test,Candidate`),
      ].join('\n');
      await writeFile(join(dir, 'users.csv'), `${csv}\n`);
      const env = { EXAMCTL_TOKEN: 'dev-token' };
      // A third of all attempts meet a fault and a request gets 5 attempts, so now and then one
      // user meets five in a row (about one run in ten, depending on which request draws which
      // fault): the run then ends with exit 3 and that user skipped as not done. Finishing it is
      // what `runs resume` is for, and what a CI job would do; every user must still be applied once.
      const first = await examctl(
        dir,
        [
          '--target',
          'remote',
          '--base-url',
          server.url,
          '--yes',
          '--no-input',
          '--json',
          '--concurrency',
          '8',
          'user',
          'sync',
          '--file',
          join(dir, 'users.csv'),
        ],
        env,
      );
      const run = await resumeUntilDone(dir, first, env);
      expect(run.code, run.stderr).toBe(0);
      const shown = await examctl(dir, ['--json', 'runs', 'show', 'last'], env);
      const items = (JSON.parse(shown.stdout) as { items: Item[] }).items;
      expect(items.map((item) => item.id).sort()).toEqual([...ids].sort());
      expect(items.every((item) => item.status === 'ok')).toBe(true);
      // Every kind was met on the way, so the run proves the retries rather than a lucky draw.
      for (const kind of ['429', '503', 'reset', 'lost'])
        expect(
          log.some((line) => line.includes(`fault=${kind}`)),
          kind,
        ).toBe(true);
    } finally {
      await server.close();
    }
    const exported = await examctl(dir, ['--store', join(dir, 'served-store'), 'local', 'export']);
    const users = (JSON.parse(exported.stdout) as { Users: { ExternalId: string }[] }).Users.filter((u) =>
      u.ExternalId.startsWith('fu-'),
    );
    expect(users).toHaveLength(40);
    await rm(dir, { recursive: true, force: true });
  });
});
