import { buildOpenApiDocument } from './openapi.js';
import {
  apiTokenDigest,
  BUNDLED_WORLD_PATH,
  createLocalEngine,
  ensureLocalStore,
  loadWorldFile,
  type OpenLocalTargetOptions,
} from '../engine/index.js';
import { openStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/contract.js';
import { EXAMCTL_VERSION } from '../version.js';
import { startServer, type RunningServer, type ServerOptions } from './server.js';

interface ServeLocalOptions
  extends Pick<ServerOptions, 'host' | 'port' | 'bodyLimitBytes' | 'log' | 'faults' | 'timeouts'>,
    Pick<OpenLocalTargetOptions, 'now' | 'lockTimeoutMs' | 'onCreated'> {
  storeDir: string;
  /** `--public-url` (local-serve.options.ts); default: the server's own URL. */
  publicUrl?: string;
}

export interface LocalServer extends RunningServer {
  /** The store's absolute path. */
  store: string;
  /** The store accepts a token published with examctl (the demo world's): anyone who read the README can call it. */
  acceptsPublishedToken: boolean;
}

/** Whether `accepted` (plain tokens or digests) holds a token of the bundled demo world. */
async function acceptsPublishedToken(accepted: readonly string[]): Promise<boolean> {
  const published = new Set(
    (await loadWorldFile(BUNDLED_WORLD_PATH)).Settings.ApiTokens.map((token) => apiTokenDigest(token).toLowerCase()),
  );
  return accepted.some((token) => published.has(apiTokenDigest(token).toLowerCase()));
}

/** The store world's tokens, read caught up on every call: one added, removed or replaced elsewhere is honoured. */
export function storeTokens(store: Pick<Store, 'state' | 'refresh'>): () => Promise<string[]> {
  // A stored value is replaced, never changed in place: the same array is the same list.
  let seen: unknown;
  let list: string[] = [];
  return async () => {
    await store.refresh();
    const settings = store.state.get('settings')?.get('settings') as { ApiTokens?: unknown } | undefined;
    const tokens = settings?.ApiTokens;
    if (tokens !== seen) {
      seen = tokens;
      list = Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string' && t !== '') : [];
    }
    return list;
  };
}

/**
 * `examctl local serve`: the local engine over its store, as the HTTP API. A missing store is
 * created from the bundled demo world first (as for any local command). Tokens are the world's
 * Settings.ApiTokens. close() stops the server gracefully, then releases the store.
 */
export async function serveLocalStore(options: ServeLocalOptions): Promise<LocalServer> {
  const location = await ensureLocalStore(options.storeDir, options.onCreated);
  const store = await openStore(location, { lockTimeoutMs: options.lockTimeoutMs });
  const engine = createLocalEngine(options.now === undefined ? { store } : { store, now: options.now });
  let server: RunningServer;
  const tokens = storeTokens(store);
  let published: boolean;
  try {
    published = await acceptsPublishedToken(await tokens());
    // The server's own options (host, port, limits, log, faults, timeouts) pass as given; it reads no others.
    server = await startServer({
      ...options,
      api: engine,
      tokens,
      openapi: (url) => buildOpenApiDocument(EXAMCTL_VERSION, options.publicUrl ?? url),
    });
  } catch (error) {
    await engine.close();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    store: location,
    acceptsPublishedToken: published,
    async close() {
      try {
        await server.close();
      } finally {
        await engine.close();
      }
    },
  };
}
