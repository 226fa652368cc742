import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { MAX_URL_BYTES, startServer, type RunningServer } from '../../src/server/server.js';
import { API_PREFIX } from '../../src/api/url-policy.js';
import { answeringApi } from '../support/answering-api.js';

/*
 * The served document's example answer of each status the server gives itself is the very answer
 * the server gives: a client (or a mock such as Prism) built from the document shows the words a
 * real `local serve` says. Each status provoked on POST /user, its envelope's message compared with
 * the document's example for that operation and status.
 */
const TOKEN = 'status-examples-token';
type Envelope = { Errors: { Message: string }[] };
const document = JSON.parse(JSON.stringify(buildOpenApiDocument('1.0.0'))) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content: { 'application/json': { example: Envelope } } }> }>
  >;
};
const exampleOf = (path: string, method: string, status: number) =>
  document.paths[path]![method]!.responses[String(status)]!.content['application/json'].example.Errors[0]!.Message;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ api: answeringApi(), tokens: () => [TOKEN] });
});
afterAll(async () => {
  await server.close();
});

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, message: (JSON.parse(text) as Envelope).Errors[0]!.Message }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the OpenAPI examples of the statuses local serve answers itself are its answers, word for word', () => {
  const auth = { authorization: `EAPI ${TOKEN}`, 'content-type': 'application/json' };
  const cases: [string, () => Promise<{ status: number; message: string }>][] = [
    [
      '403 a token it does not know',
      () =>
        send('POST', `${API_PREFIX}/user`, { authorization: 'EAPI nope', 'content-type': 'application/json' }, '{}'),
    ],
    ['404 a route it does not have', () => send('POST', `${API_PREFIX}/no-such-route`, auth, '{}')],
    ['405 a method the route does not take', () => send('PUT', `${API_PREFIX}/user`, auth, '{}')],
    [
      '413 a body over the limit (announced)',
      () => send('POST', `${API_PREFIX}/user`, { ...auth, 'content-length': String(64 * 1024 * 1024) }),
    ],
    ['414 a URL over the limit', () => send('POST', `${API_PREFIX}/user?${'x'.repeat(MAX_URL_BYTES)}`, auth, '{}')],
  ];
  it.each(cases)('%s', async (name, provoke) => {
    const status = Number(name.slice(0, 3));
    const answer = await provoke();
    expect(answer.status).toBe(status);
    expect(answer.message).toBe(exampleOf('/user', 'post', status));
  });

  it('400 for a body not declared JSON (no 415: a request error, as the API text lists them), its words quoted in the 400 description', async () => {
    const declared = document.paths['/user']!.post!.responses['400'] as unknown as { description: string };
    const typed: Record<string, string>[] = [
      { authorization: `EAPI ${TOKEN}`, 'content-type': 'text/plain' },
      { authorization: `EAPI ${TOKEN}` },
    ];
    for (const headers of typed) {
      const answer = await send('POST', `${API_PREFIX}/user`, headers, '{}');
      expect(answer.status).toBe(400);
      expect(declared.description).toContain(`"${answer.message}"`);
    }
    const statuses = Object.keys(document.paths['/user']!.post!.responses);
    expect(statuses).not.toContain('415');
  });
});
