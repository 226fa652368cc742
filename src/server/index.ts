export { startServer, type RunningServer } from './server.js';
export { storeTokens } from './store-tokens.js';
export { serveLocalStore, type LocalServer } from './serve-local.js';
export { lineBatcher } from './log-lines.js';
export { parseFaultSpec, describeFaultSpec } from './faults.js';
