// Issue 61, "Libraries, or a measured reason": what undici's own agents would do in place of
// examctl's proxy choice (src/api/proxy-env.ts) and retry loop (src/api/retry-loop.ts). Three
// measurements: CPU per request of a bare Pool, the Pool under RetryAgent and under the retry
// interceptor (the minimal server, 5,000 POSTs at concurrency 16, 5 rounds after a warm-up); what RetryAgent
// hands the caller after retrying a 503 that carries the service's message; and whether
// EnvHttpProxyAgent sends a request for a loopback address to HTTP_PROXY.
// Issue 80 adds the HTTP pool wrapper (src/api/http-pool.ts: openDispatcher and requestText, with
// its per-answer cut, shared byte budget and InFlight deadlines) against a plain undici Agent and
// Pool answering through `request()` and `body.text()`, on the same loop.
// Run:  npm run build && node bench/undici-agents-bench.mjs   (docs/architecture.md, "Written here, and why")
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent, EnvHttpProxyAgent, Pool, RetryAgent, interceptors } from 'undici';
import { root } from './paths.mjs';
import { closedLoop, minimalServer, onFresh, userBody } from './remote-bench.mjs';

const { ByteBudget, InFlight, openDispatcher, requestText } = await import(
  pathToFileURL(join(root, 'dist/api/http-pool.js')).href
);
const pool = (url) => new Pool(url, { connections: 16, pipelining: 1 });
const kinds = {
  pool,
  agent: () => new Agent({ connections: 16, pipelining: 1 }),
  retryAgent: (url) => new RetryAgent(pool(url), { methods: ['POST'], maxRetries: 4 }),
  retryInterceptor: (url) => pool(url).compose(interceptors.retry({ methods: ['POST'], maxRetries: 4 })),
  // examctl's: the dispatcher remote-client.ts opens, each answer read by requestText within its limits.
  httpPool: (url) =>
    openDispatcher(url, { connections: 16, connectTimeout: 10_000, headersTimeout: 300_000, bodyTimeout: 300_000 }),
};
const limits = () => ({
  maxBytes: 64 * 1024 * 1024,
  budget: new ByteBudget(256 * 1024 * 1024),
  inFlight: new InFlight(300_000),
});
const cpu = {};
// Round 0 warms this process's undici and JIT up: not counted.
for (let round = 0; round <= 5; round++) {
  for (const [name, make] of Object.entries(kinds)) {
    await onFresh(
      () => minimalServer(0),
      async (target) => {
        const dispatcher = make(target.url);
        const headers = {
          authorization: `EAPI ${target.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        };
        const users = 5_000;
        const attemptLimits = limits();
        const before = process.cpuUsage();
        await closedLoop(users, 16, async (i) => {
          const request = {
            origin: target.url,
            method: 'POST',
            path: '/api/v1/integrations/user',
            headers,
            body: JSON.stringify(userBody(i, `${name}${round}`)),
          };
          if (name === 'httpPool') {
            const answer = await requestText(dispatcher, { ...request, idempotent: false }, attemptLimits);
            JSON.parse(answer.text);
            answer.release();
          } else {
            const res = await dispatcher.request(request);
            JSON.parse(await res.body.text());
          }
        });
        const used = process.cpuUsage(before);
        if (round > 0) (cpu[name] ??= []).push(+((used.user + used.system) / users).toFixed(1));
        await dispatcher.close();
        return 0;
      },
    );
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(cpu))
  console.log(`${name}: ${median(values)} us CPU per request (rounds ${values.join(', ')})`);

const failing = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
    res.end('{"Success":false,"Errors":[{"Code":null,"Message":"maintenance until 02:00"}]}');
  });
});
await new Promise((resolve) => failing.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${failing.address().port}`;
const agent = new RetryAgent(new Pool(origin), { methods: ['POST'], maxRetries: 2, minTimeout: 1, maxTimeout: 2 });
try {
  const res = await agent.request({
    origin,
    method: 'POST',
    path: '/x',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  console.log(`RetryAgent, a 503 with the service's message: answered ${res.statusCode} ${await res.body.text()}`);
} catch (error) {
  console.log(
    `RetryAgent, a 503 with the service's message: threw ${error.constructor.name} ${JSON.stringify(error.message)}, data ${JSON.stringify(error.data ?? null)}`,
  );
}
await agent.close();
failing.close();

let proxyConnections = 0;
const proxy = net.createServer((socket) => {
  proxyConnections += 1;
  socket.once('data', () => socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const direct = http.createServer((_req, res) => res.end('direct'));
await new Promise((resolve) => direct.listen(0, '127.0.0.1', resolve));
const viaEnv = new EnvHttpProxyAgent({ httpProxy: `http://127.0.0.1:${proxy.address().port}`, noProxy: '' });
try {
  const res = await viaEnv.request({
    origin: `http://127.0.0.1:${direct.address().port}`,
    method: 'GET',
    path: '/',
    signal: AbortSignal.timeout(3000),
  });
  console.log(
    `EnvHttpProxyAgent, a loopback target with HTTP_PROXY set: answered ${res.statusCode}, proxy connections ${proxyConnections}`,
  );
} catch (error) {
  console.log(
    `EnvHttpProxyAgent, a loopback target with HTTP_PROXY set: ${error.code ?? error.message}, proxy connections ${proxyConnections}`,
  );
}
process.exit(0);
