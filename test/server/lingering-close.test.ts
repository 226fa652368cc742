import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/server.js';
import type { LingerBounds } from '../../src/server/server.js';
import { answeringApi } from '../support/answering-api.js';

const TOKEN = 'linger-token';
const MiB = 1024 * 1024;

let server: RunningServer | undefined;
let calls: string[];

async function serve(linger?: LingerBounds): Promise<RunningServer> {
  calls = [];
  server = await startServer({
    api: answeringApi(() => calls.push('upsertUser')),
    tokens: () => [TOKEN],
    bodyLimitBytes: 64 * 1024,
    ...(linger ? { linger } : {}),
  });
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a client saw of one connection. */
interface Exchange {
  /** Every byte the server sent, as latin1 text. */
  answer: string;
  /** The server ended its side (a FIN) before the connection closed. */
  serverEnded: boolean;
  /** The socket's error code, if the connection broke (ECONNRESET, EPIPE). */
  error: string | undefined;
  /** Body bytes the kernel took from the client. */
  written: number;
}

/** The answer is whole: headers, and as many body bytes as its content-length says. */
function isWholeAnswer(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
  return length !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
}

interface Upload {
  /** The request line and headers, without the blank line. */
  head: string;
  /** Body bytes to write; Infinity: until the connection breaks or closes. */
  total: number;
  chunk: number;
  /**
   * Written first; the rest only once the whole answer and the server's end of stream have been read (the server
   * answered early, and ends its side as it answers): a cut that comes later cannot overtake that end.
   */
  beforeAnswer?: number;
  /** Reads nothing until every body byte was written (a client that writes its whole body first). */
  readAfterWriting?: boolean;
  /** Never ends its side: a sender that stops mid-body and waits. */
  neverEnds?: boolean;
}

/**
 * One request whose body is written chunk by chunk, each chunk once the kernel took the one
 * before (no timers). The client's side stays open after the server's end of stream, as a real
 * client's does while it is still sending; it ends its side when it has written everything.
 */
function upload(port: number, spec: Upload): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const exchange: Exchange = { answer: '', serverEnded: false, error: undefined, written: 0 };
    const chunk = Buffer.alloc(spec.chunk, 0x61);
    let answered: () => void = () => undefined;
    const wholeAnswer = new Promise<void>((resolveAnswer) => (answered = resolveAnswer));
    let stopped = false;
    if (spec.readAfterWriting === true) socket.pause();
    const answeredAndEnded = (): void => {
      if (exchange.serverEnded && isWholeAnswer(exchange.answer)) answered();
    };
    socket.on('data', (data: Buffer) => {
      exchange.answer += data.toString('latin1');
      answeredAndEnded();
    });
    socket.on('end', () => {
      exchange.serverEnded = true;
      answeredAndEnded();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      stopped = true;
      exchange.error = error.code ?? error.message;
    });
    socket.on('close', () => {
      stopped = true;
      resolve(exchange);
    });
    const writeNext = (): void => {
      if (stopped) return;
      if (exchange.written >= spec.total) {
        if (spec.readAfterWriting === true) socket.resume();
        if (spec.neverEnds !== true) socket.end();
        return;
      }
      const size = Math.min(spec.chunk, spec.total - exchange.written);
      socket.write(size === spec.chunk ? chunk : chunk.subarray(0, size), (error) => {
        if (error) return;
        exchange.written += size;
        if (spec.beforeAnswer !== undefined && exchange.written === spec.beforeAnswer) void wholeAnswer.then(writeNext);
        else writeNext();
      });
    };
    socket.once('connect', () => {
      socket.write(`${spec.head}\r\n\r\n`);
      writeNext();
    });
  });
}

const unauthenticated = (length: number) =>
  `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}`;
const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('lingering close: a refused request reads its answer while its body is still coming', () => {
  it('403 answered after the first chunk, then megabytes more written chunk by chunk: the whole answer and a clean end', async () => {
    const { port } = await serve();
    const total = 8 * MiB;
    const exchange = await upload(port, {
      head: unauthenticated(total),
      total,
      chunk: 64 * 1024,
      beforeAnswer: 64 * 1024,
    });
    expect(statusOf(exchange.answer)).toBe(403);
    expect(isWholeAnswer(exchange.answer)).toBe(true);
    expect(exchange.answer.toLowerCase()).toContain('connection: close');
    expect(exchange.answer).toContain('not allowed to use the external API');
    expect(exchange.error).toBeUndefined();
    expect(exchange.serverEnded).toBe(true);
    expect(exchange.written).toBe(total);
    expect(calls).toEqual([]);
  });

  it('a client that writes its whole 50 MB body before reading anything still reads its 403, on a clean end', async () => {
    const { port } = await serve();
    const total = 50 * 1000 * 1000;
    const exchange = await upload(port, {
      head: unauthenticated(total),
      total,
      chunk: 256 * 1024,
      readAfterWriting: true,
    });
    expect(exchange.error).toBeUndefined();
    expect(exchange.written).toBe(total);
    expect(statusOf(exchange.answer)).toBe(403);
    expect(isWholeAnswer(exchange.answer)).toBe(true);
    expect(exchange.serverEnded).toBe(true);
  });

  it('413 for a body over the limit found while reading it, and 400 for a body not declared JSON, each read whole while the body goes on', async () => {
    const { port } = await serve();
    const authorized = (type: string, length: number) =>
      `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: ${type}\r\nContent-Length: ${length}`;
    // The declared length is over the limit: refused before a body byte is read.
    const declared = await upload(port, {
      head: authorized('application/json', 4 * MiB),
      total: 4 * MiB,
      chunk: 64 * 1024,
      readAfterWriting: true,
    });
    expect(statusOf(declared.answer)).toBe(413);
    expect(declared.error).toBeUndefined();
    const notJson = await upload(port, {
      head: authorized('text/plain', 4 * MiB),
      total: 4 * MiB,
      chunk: 64 * 1024,
      readAfterWriting: true,
    });
    expect(statusOf(notJson.answer)).toBe(400);
    expect(notJson.error).toBeUndefined();
    expect(notJson.serverEnded).toBe(true);
    expect(calls).toEqual([]);
  });

  it('a chunked body over the limit (no length announced) gets its 413 read, then the rest drained', async () => {
    const { port } = await serve();
    const head = `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`;
    const exchange = await new Promise<Exchange>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      const exchange: Exchange = { answer: '', serverEnded: false, error: undefined, written: 0 };
      const piece = `${(32 * 1024).toString(16)}\r\n${'a'.repeat(32 * 1024)}\r\n`;
      socket.on('data', (data: Buffer) => (exchange.answer += data.toString('latin1')));
      socket.on('end', () => (exchange.serverEnded = true));
      socket.on('error', (error: NodeJS.ErrnoException) => (exchange.error = error.code));
      socket.on('close', () => resolve(exchange));
      const writeNext = (): void => {
        // 4 MiB in all, then the last chunk: the body's end is what ends the lingering.
        if (exchange.written >= 4 * MiB) {
          socket.end('0\r\n\r\n');
          return;
        }
        socket.write(piece, (error) => {
          if (error) return;
          exchange.written += 32 * 1024;
          writeNext();
        });
      };
      socket.once('connect', () => {
        socket.write(`${head}\r\n\r\n`);
        writeNext();
      });
    });
    expect(statusOf(exchange.answer)).toBe(413);
    expect(isWholeAnswer(exchange.answer)).toBe(true);
    expect(exchange.error).toBeUndefined();
    expect(exchange.serverEnded).toBe(true);
    expect(calls).toEqual([]);
  });
});

/** The whole 403 read and the server's end of stream, then the connection cut while the client still wrote. */
function expectAnsweredThenCut(exchange: Exchange, announced: number): void {
  expect(statusOf(exchange.answer)).toBe(403);
  expect(isWholeAnswer(exchange.answer)).toBe(true);
  expect(exchange.serverEnded).toBe(true);
  expect(exchange.error).toBeDefined();
  expect(exchange.written).toBeLessThan(announced);
}

describe('lingering close is bounded', () => {
  it('an endless sender is cut once the byte bound is passed, after its answer was read', async () => {
    const { port } = await serve({ maxBytes: 512 * 1024, maxMs: 60_000 });
    const announced = 1000 * MiB;
    expectAnsweredThenCut(
      await upload(port, {
        head: unauthenticated(announced),
        total: Number.POSITIVE_INFINITY,
        chunk: 64 * 1024,
        beforeAnswer: 64 * 1024,
      }),
      announced,
    );
  });

  it('a sender that never finishes its body is cut once the time bound passes, after its answer was read', async () => {
    // The byte bound is far beyond what 1 KiB writes reach before the time bound: the time cuts it.
    const { port } = await serve({ maxBytes: 1024 * MiB, maxMs: 50 });
    expectAnsweredThenCut(
      await upload(port, {
        head: unauthenticated(2000 * MiB),
        total: Number.POSITIVE_INFINITY,
        chunk: 1024,
        beforeAnswer: 1024,
      }),
      1024 * MiB,
    );
  });

  it('a request sent behind a refused one on the same connection is never run', async () => {
    const { port } = await serve();
    const behind = `POST /api/v1/integrations/user HTTP/1.1\r\nHost: x\r\nAuthorization: EAPI ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const exchange = await new Promise<Exchange>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      const exchange: Exchange = { answer: '', serverEnded: false, error: undefined, written: 0 };
      socket.on('data', (data: Buffer) => (exchange.answer += data.toString('latin1')));
      socket.on('end', () => (exchange.serverEnded = true));
      socket.on('error', (error: NodeJS.ErrnoException) => (exchange.error = error.code));
      socket.on('close', () => resolve(exchange));
      socket.once('connect', () => socket.write(`${unauthenticated(5)}\r\n\r\nhello${behind}`));
    });
    expect(statusOf(exchange.answer)).toBe(403);
    expect(exchange.answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(calls).toEqual([]);
  });
});
