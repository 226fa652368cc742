export { serveLocalStore } from './serve-local.js';
export { lineBatcher } from './log-lines.js';
export { parseFaultSpec, describeFaultSpec } from './faults.js';
