// Remote client overhead: users/s of N POST /user calls through createRemoteClient against a
// minimal loopback server, versus a bare undici Pool loop at the same concurrency against the
// same server. Run after `npm run build`:  node bench/remote-bench.mjs [calls] [concurrency]
import http from 'node:http';
import { Pool } from 'undici';
import { createRemoteClient } from '../dist/api/remote-client.js';

const calls = Number(process.argv[2] ?? 10_000);
const concurrency = Number(process.argv[3] ?? 8);
const TOKEN = 'bench-token';
const reply = JSON.stringify({
  Content: { User: { ExternalId: 'u', FirstName: 'A', LastName: 'B' }, GroupErrors: [] },
  Success: true,
  Errors: null,
});

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
server.keepAliveTimeout = 30_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const userAt = (i) => ({
  ExternalId: `u-${i}`,
  FirstName: 'Ann',
  LastName: 'Lee',
  Email: `u-${i}@example.test`,
  Role: 'Candidate',
  Hierarchies: [{ ExternalId: 'H-NORTH' }],
});

async function runWorkers(one) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const i = next++;
        await one(i);
      }
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

async function bare() {
  const pool = new Pool(baseUrl, { connections: concurrency, pipelining: 1 });
  const headers = {
    authorization: `EAPI ${TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const rate = await runWorkers(async (i) => {
    const res = await pool.request({ method: 'POST', path: '/api/v1/integrations/user', headers, body: JSON.stringify(userAt(i)) });
    const envelope = JSON.parse(await res.body.text());
    if (!envelope.Success) throw new Error('unexpected failure');
  });
  await pool.close();
  return rate;
}

async function client() {
  const api = createRemoteClient({ baseUrl, token: TOKEN, concurrency });
  const rate = await runWorkers(async (i) => {
    const result = await api.upsertUser(userAt(i));
    if (!result.envelope.Success) throw new Error('unexpected failure');
  });
  await api.close();
  return rate;
}

// Warm both paths (JIT, sockets) before measuring; alternate to spread any drift.
const warm = Math.min(1000, calls);
const runs = { bare: [], client: [] };
await (async () => {
  const api = createRemoteClient({ baseUrl, token: TOKEN, concurrency });
  for (let i = 0; i < warm; i += 1) await api.upsertUser(userAt(i));
  await api.close();
})();
for (let round = 0; round < 2; round += 1) {
  runs.bare.push(await bare());
  runs.client.push(await client());
}
const best = (values) => Math.max(...values);
const bareRate = best(runs.bare);
const clientRate = best(runs.client);
server.close();
console.log(`calls=${calls} concurrency=${concurrency} (best of ${runs.bare.length} runs each)`);
console.log(`bare undici Pool:      ${bareRate.toFixed(0)} users/s`);
console.log(`createRemoteClient:    ${clientRate.toFixed(0)} users/s`);
console.log(`ratio client/bare:     ${(clientRate / bareRate).toFixed(2)} (goal >= 0.5)`);
