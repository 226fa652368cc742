// Issue 33, joiners, movers, leavers: after a full `user sync` of N users (default 50,000) with a
// Hierarchies column, two nights from the same memory: today's changed-only night (1 % of the
// rows with a new LastName, 100 users gone; --changed-only --disable-missing) and a movers night
// (1 % of the users moved to another hierarchy, 100 gone; --changed-only --disable-missing
// --prune-memberships, each mover's request carrying a DELETE). Goal: the movers night costs no
// more than today's night (requests and wall time). Same loopback server as sync-bench.mjs.
// Run after `npm run build`:  node bench/movers-bench.mjs [users] [latencyMs] [concurrency]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli, latencyServer, writeUsers } from './sync-bench.mjs';

const GONE = 100;
const HIERARCHIES = 50;

export async function runMoversBench(users = 50_000, latencyMs = 20, concurrency = 16) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-movers-'));
  const server = await latencyServer(latencyMs);
  try {
    const step = 100; // 1 %
    const moved = (i) => i % step === 0;
    const gone = (i) => i > users / 2 && i <= users / 2 + GONE && !moved(i);
    const home = (i) => `H-${i % HIERARCHIES}`;
    writeUsers(
      join(scratch, 'full.csv'),
      users,
      () => false,
      () => false,
      home,
    );
    writeUsers(join(scratch, 'changed.csv'), users, moved, gone, home);
    writeUsers(
      join(scratch, 'movers.csv'),
      users,
      () => false,
      gone,
      (i) => (moved(i) ? `H-${(i + 1) % HIERARCHIES}` : home(i)),
    );
    await cli(scratch, server, join(scratch, 'full.csv'), concurrency, []);
    // Both nights start from the memory the full run left.
    const state = join(scratch, 'state');
    cpSync(state, join(scratch, 'state-after-full'), { recursive: true });
    const night = async (file, flags) => {
      rmSync(state, { recursive: true, force: true });
      cpSync(join(scratch, 'state-after-full'), state, { recursive: true });
      const before = await server.counts();
      const run = await cli(scratch, server, join(scratch, file), concurrency, flags);
      return { ...run, requests: (await server.counts()).posts - before.posts };
    };
    const today = await night('changed.csv', ['--changed-only', '--disable-missing']);
    const movers = await night('movers.csv', ['--changed-only', '--disable-missing', '--prune-memberships']);
    const row = (name, run) => ({
      run: name,
      seconds: +run.seconds.toFixed(2),
      'cpu s': +run.cpu.toFixed(2),
      requests: run.requests,
    });
    return [
      row(`today: --changed-only --disable-missing (${users / step} changed, ${GONE} gone)`, today),
      row(`movers: ... --prune-memberships (${users / step} moved, ${GONE} gone)`, movers),
      {
        run: 'movers / today (goal <= 1)',
        seconds: +(movers.seconds / today.seconds).toFixed(3),
        'cpu s': +(movers.cpu / today.cpu).toFixed(3),
        requests: +(movers.requests / today.requests).toFixed(3),
      },
    ];
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [users, latency, concurrency] = process.argv.slice(2).map(Number);
  console.table(await runMoversBench(users || undefined, latency || undefined, concurrency || undefined));
}
