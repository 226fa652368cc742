import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestText } from '../../src/api/http-pool.js';

/** Answers shaped by the path: what requestText must read exactly as request + body.text() does. */
let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      switch (req.url) {
        case '/bom':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"Success":true,"Name":"Chloé"}')]));
          break;
        case '/chunks': {
          res.writeHead(503, [['Retry-After', '2'], ['X-Twice', 'a'], ['x-twice', 'b'], ['Content-Type', 'text/html']]);
          const text = Buffer.from('<p>ünïcode split over chunks</p>'.repeat(500));
          // Cut inside a multi-byte character on purpose.
          res.write(text.subarray(0, 7));
          setTimeout(() => res.end(text.subarray(7)), 5);
          break;
        }
        case '/empty':
          res.writeHead(204);
          res.end();
          break;
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('nope');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('requestText', () => {
  it.each(['/bom', '/chunks', '/empty', '/missing'])('reads %s as request() then body.text() does', async (path) => {
    const pool = new Pool(origin, { connections: 2 });
    try {
      const expected = await pool.request({ method: 'POST', path, body: '{}', headers: { 'content-type': 'application/json' } });
      const expectedText = await expected.body.text();
      const got = await requestText(pool, { method: 'POST', path, body: '{}', headers: { 'content-type': 'application/json' } });
      expect(got.statusCode).toBe(expected.statusCode);
      expect(got.text).toBe(expectedText);
      const { date: _date, ...expectedHeaders } = expected.headers;
      const { date: _gotDate, ...gotHeaders } = got.headers;
      expect({ ...gotHeaders }).toEqual(expectedHeaders);
    } finally {
      await pool.close();
    }
  });

  it('rejects with the network error when the connection is refused', async () => {
    const pool = new Pool('http://127.0.0.1:9', { connections: 1 });
    try {
      await expect(requestText(pool, { method: 'GET', path: '/' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await pool.close();
    }
  });
});
