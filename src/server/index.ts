export { startServer, DEFAULT_BODY_LIMIT_BYTES, type RunningServer, type ServerOptions } from './server.js';
export { storeTokens } from './store-tokens.js';
export { serveLocalStore, type LocalServer, type ServeLocalOptions } from './serve-local.js';
