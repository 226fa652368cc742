// Issue 37: the CPU of one `api.upsertUser(body)` through examctl's remote client, in process,
// against the bare undici loop (`bareLoop` of remote-bench.mjs: Pool.request, body.text(),
// JSON.parse) and against the floor the client is built on (undici's dispatch with a handler
// collecting the chunks, the client's own headers and options, then JSON.parse). The server is the
// minimal loopback server in a process of its own, so this process's CPU (user + system,
// `process.cpuUsage`) is the loop's alone. Concurrency 16, a warm-up round, then paired rounds in
// the same minutes; `[other dist]` (a built examctl's dist/) is measured in the same rounds, the
// order of the two clients alternating round by round.
// Run after `npm run build`:  node bench/client-bench.mjs [calls=20000] [rounds=9] [other dist]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { closedLoop, minimalServer, userBody } from './remote-bench.mjs';
import { root } from './paths.mjs';

const CONCURRENCY = 16;
const PATH = '/api/v1/integrations/user';

/** µs of CPU per call of `send(i)` for i = 1..calls, `CONCURRENCY` callers at a time. */
async function cpuPerCall(calls, send) {
  const before = process.cpuUsage();
  await closedLoop(calls, CONCURRENCY, send);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

async function bare(target, bodies) {
  const pool = new Pool(target.url, { connections: CONCURRENCY, pipelining: 1 });
  const headers = {
    authorization: `EAPI ${target.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  try {
    return await cpuPerCall(bodies.length - 1, async (i) => {
      const res = await pool.request({ method: 'POST', path: PATH, headers, body: JSON.stringify(bodies[i]) });
      if (!JSON.parse(await res.body.text()).Success) throw new Error('bare loop: unexpected failure');
    });
  } finally {
    await pool.close();
  }
}

async function floor(target, bodies) {
  const pool = new Pool(target.url, {
    connections: CONCURRENCY,
    pipelining: 1,
    connectTimeout: 10_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const headers = {
    authorization: `EAPI ${target.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'examctl/bench',
  };
  const send = (body) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      pool.dispatch(
        { origin: target.url, method: 'POST', path: PATH, headers, body, idempotent: false },
        {
          onRequestStart() {},
          onResponseStart() {},
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            resolve(JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8')));
          },
          onResponseError(_controller, error) {
            reject(error);
          },
        },
      );
    });
  try {
    return await cpuPerCall(bodies.length - 1, async (i) => {
      if (!(await send(JSON.stringify(bodies[i]))).Success) throw new Error('floor: unexpected failure');
    });
  } finally {
    await pool.close();
  }
}

async function client(createRemoteClient, target, bodies) {
  // With a signal, as the CLI creates it.
  const api = createRemoteClient({
    baseUrl: target.url,
    token: target.token,
    concurrency: CONCURRENCY,
    signal: new AbortController().signal,
  });
  try {
    return await cpuPerCall(bodies.length - 1, async (i) => {
      if (!(await api.upsertUser(bodies[i])).envelope.Success) throw new Error('client: unexpected failure');
    });
  } finally {
    await api.close();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runClientBench({ calls = 20_000, rounds = 9, otherDist } = {}) {
  const builds = [['this build', join(root, 'dist')], ...(otherDist ? [['other build', otherDist]] : [])];
  const creators = [];
  for (const [, dist] of builds)
    creators.push((await import(pathToFileURL(join(dist, 'api', 'remote-client.js')).href)).createRemoteClient);
  const bodies = Array.from({ length: calls + 1 }, (_, i) => userBody(i, 'c'));
  const target = await minimalServer(0);
  const figures = { bare: [], floor: [], ...Object.fromEntries(builds.map(([label]) => [label, []])) };
  try {
    for (let round = -1; round < rounds; round += 1) {
      // Round -1 warms the JIT and undici for every loop; it is not counted.
      const bareUs = await bare(target, bodies);
      const floorUs = await floor(target, bodies);
      const order = builds.map((build, k) => [build, creators[k]]);
      if (round % 2 === 1) order.reverse();
      const clientUs = [];
      for (const [[label], create] of order) clientUs.push([label, await client(create, target, bodies)]);
      if (round < 0) continue;
      figures.bare.push(bareUs);
      figures.floor.push(floorUs);
      for (const [label, us] of clientUs) figures[label].push(us);
    }
  } finally {
    await target.close();
  }
  return Object.entries(figures).map(([loop, values]) => ({
    loop,
    'CPU us per call (median)': +median(values).toFixed(1),
    'over the bare loop (median of rounds)': +median(values.map((v, i) => v - figures.bare[i])).toFixed(1),
    'over the floor (median of rounds)': +median(values.map((v, i) => v - figures.floor[i])).toFixed(1),
    // The two builds' paired difference: the figure that moves least with the machine's load.
    ...(loop === 'this build' && otherDist
      ? {
          'minus the other build (median of rounds)': +median(
            values.map((v, i) => v - figures['other build'][i]),
          ).toFixed(1),
        }
      : {}),
    rounds: values.map((v) => v.toFixed(1)).join(' '),
  }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(
    await runClientBench({
      calls: Number(process.argv[2] ?? 20_000),
      rounds: Number(process.argv[3] ?? 9),
      otherDist: process.argv[4],
    }),
  );
}
