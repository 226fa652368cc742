// CPU per sequential commit (one transaction a batch, the lease kept), store code of a given dist/.
// node bench/ab-commit.mjs <dist dir> [commits]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [dist, n = '3000'] = process.argv.slice(2);
const { createStore, openStore } = await import(join(dist, 'engine/store/index.js'));
const dir = mkdtempSync(join(tmpdir(), 'hserve-commit-'));
await createStore(join(dir, 's'), []);
const store = await openStore(join(dir, 's'));
const value = {
  FirstName: 'Ann',
  LastName: 'Lee',
  Email: 'a@example.test',
  Hierarchies: ['H-NORTH'],
  pad: 'x'.repeat(400),
};
for (let i = 0; i < 500; i++)
  await store.transact(() => ({ result: i, changes: [{ collection: 'users', key: `w${i}`, value }] }));
const cpu = process.cpuUsage();
const t = performance.now();
for (let i = 0; i < Number(n); i++)
  await store.transact(() => ({ result: i, changes: [{ collection: 'users', key: `u${i}`, value }] }));
const used = process.cpuUsage(cpu);
console.log(
  JSON.stringify({
    cpuUsPerCommit: Math.round((used.user + used.system) / Number(n)),
    wallUsPerCommit: Math.round(((performance.now() - t) * 1000) / Number(n)),
  }),
);
await store.close();
rmSync(dir, { recursive: true, force: true });
