// Child process for the store tests: runs against the built dist/ (npm run build).
// Usage:
//   node store-worker.mjs write <dir> <prefix> <count> <concurrency> [compactAtBytes]
//     writes users <prefix>-<i> and increments settings/counter in each transaction; prints each
//     key once its transact() resolved (so: committed), then "done".
//   node store-worker.mjs hold-lock <dir>
//     takes the store lock, prints "locked", holds it until killed.
import { openStore } from '../../dist/engine/store/index.js';
import { StoreLock } from '../../dist/system/lock.js';

const [mode, dir, ...rest] = process.argv.slice(2);

if (mode === 'write') {
  const [prefix, countText, concurrencyText, compactText] = rest;
  const count = Number(countText);
  const concurrency = Number(concurrencyText);
  const store = await openStore(dir, compactText ? { compactAtBytes: Number(compactText) } : {});
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const key = `${prefix}-${next++}`;
      await store.transact((state) => {
        const counter = state.get('settings').get('counter')?.n ?? 0;
        return {
          result: undefined,
          changes: [
            { collection: 'users', key, value: { UserName: key } },
            { collection: 'settings', key: 'counter', value: { n: counter + 1 } },
          ],
        };
      });
      process.stdout.write(`${key}\n`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  await store.close();
  process.stdout.write('done\n');
} else if (mode === 'hold-lock') {
  const lock = new StoreLock(dir, 10_000);
  await lock.acquire();
  process.stdout.write('locked\n');
  setInterval(() => undefined, 1 << 30);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
