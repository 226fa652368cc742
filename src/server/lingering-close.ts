import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long, and how much, a connection answered before its request body was read goes on being
 * read and discarded after its answer (docs/remote.md, "Lingering close"): the byte bound above
 * any body a client may announce to be refused (16 MiB by default), the time bound for a slow one.
 */
export interface LingerBounds {
  /** Bytes discarded after the answer; more, and the connection is cut. */
  maxBytes: number;
  /** Milliseconds after the answer; later, the connection is cut. */
  maxMs: number;
}

export const DEFAULT_LINGER: LingerBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 5_000 };

/** Connections whose answer ends them: a request parsed after that answer is never run. */
const endedByAnswer = new WeakSet<Socket>();

/** Whether the connection's current answer closes it (a request behind it is not served). */
export function isEndedByAnswer(socket: Socket): boolean {
  return endedByAnswer.has(socket);
}

/**
 * The lingering close (docs/remote.md, "Lingering close") of a connection answered before its body
 * was read: Node would destroy the socket, and the kernel reset the body still arriving. Call it before answering.
 */
export function lingerAfterAnswer(req: http.IncomingMessage, bounds: LingerBounds): void {
  const socket = req.socket;
  endedByAnswer.add(socket);
  // The rest of the body is read from now on, counted and dropped (a request the handler had
  // begun to read was paused when it was refused).
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) socket.destroy();
  });
  req.resume();
  // Node calls this once the answer is written, for an answer that says `connection: close`.
  socket.destroySoon = () => linger(socket, req, bounds.maxMs);
}

function linger(socket: Socket, req: http.IncomingMessage, maxMs: number): void {
  const timer = setTimeout(() => socket.destroy(), maxMs);
  // Nothing more will come, or need be read: closed once the answer has left.
  const done = (): void => {
    clearTimeout(timer);
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  socket.once('close', () => clearTimeout(timer));
  socket.end();
  // The whole body arrived (its end), or the client sent all it will (its end of stream).
  if (req.complete || socket.readableEnded) {
    done();
    return;
  }
  req.once('end', done);
  socket.once('end', done);
}
