import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * A forward proxy on loopback that speaks CONNECT only, as corporate proxies do for https.
 * Every host name is resolved to 127.0.0.1 (the proxy does the DNS, as a real one does), so a
 * test can use a non-loopback base URL, which examctl would not send through a proxy otherwise.
 * `log` holds one line per tunnel: `CONNECT host:port` and whether credentials came.
 */
export interface ConnectProxy {
  url: string;
  port: number;
  log: Array<{ target: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** `deny`: answer every CONNECT with this status (403, 407, 502...) or close it unanswered ('close'), opening no tunnel. */
export async function startConnectProxy(options: { deny?: number | 'close' } = {}): Promise<ConnectProxy> {
  const log: ConnectProxy['log'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(405, { 'content-type': 'text/plain' });
    res.end('this proxy only tunnels (CONNECT)');
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    log.push({ target, authorization: req.headers['proxy-authorization'] });
    if (options.deny === 'close') {
      client.destroy();
      return;
    }
    if (options.deny !== undefined) {
      client.end(`HTTP/1.1 ${options.deny} Denied\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const port = Number(target.slice(target.lastIndexOf(':') + 1));
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
