// Issue 59, what a night uploads to a state service (docs/sync.md, "Written ahead"): a full user
// sync of 50,000 users into a memory kept by an in-process Terraform-HTTP-style state service on
// loopback, then a --changed-only --disable-missing night with 1 % changed, counting the bytes
// POSTed to the memory's address and to its intents (`<address>-intents-<level>`).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from './paths.mjs';
import { latencyServer, timedSync, writeUsers } from './sync-bench.mjs';

/** GET, POST and DELETE by path, LOCK and UNLOCK held by one run at a time; the bytes POSTed counted by kind. */
async function stateServer() {
  const states = new Map();
  const locks = new Map();
  const posted = { memory: 0, intents: 0, posts: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url, 'http://127.0.0.1').pathname;
      const body = Buffer.concat(chunks);
      let status = 200;
      let text = '';
      if (req.method === 'LOCK') status = locks.has(path) ? 423 : (locks.set(path, body.toString()), 200);
      else if (req.method === 'UNLOCK') locks.delete(path);
      else if (req.method === 'GET') [status, text] = states.has(path) ? [200, states.get(path)] : [404, ''];
      else if (req.method === 'POST') {
        states.set(path, body.toString());
        posted[path.includes('-intents-') ? 'intents' : 'memory'] += body.length;
        posted.posts += 1;
      } else if (req.method === 'DELETE') states.delete(path);
      res.writeHead(status);
      res.end(text);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `http://127.0.0.1:${server.address().port}/state/nightly`,
    posted,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export async function runStateBench(users = 50_000) {
  const data = mkdtempSync(join(tmpdir(), 'examctl-bench-state-'));
  const platform = await latencyServer(0);
  const state = await stateServer();
  try {
    const full = join(data, 'full.csv');
    const tonight = join(data, 'tonight.csv');
    writeUsers(full, users);
    writeUsers(tonight, users, (i) => i % 100 === 0);
    const flags = ['--sync-dir', state.address, '--disable-missing'];
    const rows = [];
    for (const [run, file, more] of [
      [`full sync, ${users} users`, full, []],
      ['--changed-only night, 1 % changed', tonight, ['--changed-only']],
    ]) {
      const before = { ...state.posted };
      const timed = await timedSync(cliPath, data, platform, file, [...flags, ...more]);
      const mb = (key) => +((state.posted[key] - before[key]) / 1e6).toFixed(2);
      rows.push({
        run,
        'wall s': timed['wall s'],
        'memory stored MB': mb('memory'),
        'intents written ahead MB': mb('intents'),
        'uploaded MB': +(mb('memory') + mb('intents')).toFixed(2),
        posts: state.posted.posts - before.posts,
      });
    }
    return rows;
  } finally {
    await state.close();
    await platform.close();
    rmSync(data, { recursive: true, force: true });
  }
}
