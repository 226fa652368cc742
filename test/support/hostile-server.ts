import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answeredAsPlatform } from './platform-store-route.js';

/**
 * A loopback server that answers however a test's handler says, including in ways no honest
 * server does: a body trickled for ever, no answer at all, a redirect, a self-signed certificate.
 * Every socket is tracked and destroyed at close, so an answer held for ever never holds a test.
 */
export interface HostileRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type HostileHandler = (request: HostileRequest, res: http.ServerResponse) => void;

export interface HostileServer {
  url: string;
  requests: HostileRequest[];
  /** TCP connections the server accepted (a TLS handshake refused by the client included). */
  connections: number;
  /** Questions for a served store's head answered as the platform does (HostileOptions.storeRoute). */
  storeAsked: number;
  /** The self-signed server's certificate (PEM). */
  cert?: string;
  handler: HostileHandler;
  close(): Promise<void>;
}

export interface HostileOptions {
  /** Serve https with a fresh self-signed certificate for 127.0.0.1 (needs the openssl CLI). */
  selfSigned?: boolean;
  /**
   * Hand a run's question for a served store's head (`GET .../examctl/store`, docs/remote.md) to the
   * handler too. Else it is answered as the platform answers a route it does not know (404, no
   * `x-examctl-store`), counted in `storeAsked`, not in `requests`.
   */
  storeRoute?: boolean;
}

/** A self-signed certificate for 127.0.0.1/localhost, made with the openssl CLI; undefined if it is absent. */
export function selfSignedCertificate(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'examctl-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startHostileServer(
  handler: HostileHandler,
  options: HostileOptions = {},
): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const state = { handler, connections: 0, storeAsked: 0 };
  const requests: HostileRequest[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      if (options.storeRoute !== true && answeredAsPlatform(req, res)) {
        state.storeAsked += 1;
        return;
      }
      requests.push(request);
      state.handler(request, res);
    });
  };
  let server: http.Server | https.Server;
  let pair: { key: string; cert: string } | undefined;
  if (options.selfSigned) {
    pair = selfSignedCertificate();
    if (pair === undefined) throw new Error('openssl is needed for a self-signed test server');
    server = https.createServer(pair, listener);
  } else {
    server = http.createServer(listener);
  }
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.selfSigned ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    cert: pair?.cert,
    get connections() {
      return state.connections;
    },
    get storeAsked() {
      return state.storeAsked;
    },
    get handler() {
      return state.handler;
    },
    set handler(next: HostileHandler) {
      state.handler = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends the body one byte per `everyMs` for ever (until the socket closes). */
export function trickle(res: http.ServerResponse, body: string, everyMs: number): void {
  // The status line goes at once, not with the first byte: a loaded machine's late first tick must not look like no answer.
  res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      return;
    }
    res.write(body[at % body.length] ?? ' ');
    at += 1;
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Answers `status` with a body of `bytes` bytes of `x` (Content-Length said), written as fast
 * as the client reads, and stopped when the client drops the connection.
 */
export function largeBody(res: http.ServerResponse, status: number, bytes: number): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes) });
  const chunk = Buffer.alloc(1024 * 1024, 0x78);
  let left = bytes;
  res.on('error', () => undefined);
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
