import type http from 'node:http';

/**
 * A run's question for a served store's head (`GET .../examctl/store`, asked before its first write; docs/remote.md,
 * "The local server") answered as the platform answers a route it does not know: 404, without `local serve`'s header
 * `x-examctl-store`. True when `req` was that question (answered here); a test server then handles the rest.
 */
export function answeredAsPlatform(req: Pick<http.IncomingMessage, 'url'>, res: http.ServerResponse): boolean {
  if (!(req.url ?? '').startsWith('/api/v1/integrations/examctl/store')) return false;
  res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 9 }).end('Not Found');
  return true;
}
