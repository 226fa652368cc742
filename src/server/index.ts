export { startServer, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_TIMEOUTS, MAX_URL_BYTES, MAX_HEADER_BYTES, type RunningServer, type ServerOptions } from './server.js';
export { storeTokens } from './store-tokens.js';
export { serveLocalStore, type LocalServer, type ServeLocalOptions } from './serve-local.js';
export { lineBatcher, type LineBatcher } from './log-lines.js';
export { parseFaultSpec, describeFaultSpec, faultPlan, type FaultSpec, type FaultKind } from './faults.js';
