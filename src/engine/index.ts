export { createLocalEngine } from './engine.js';
export { apiTokenDigest, exportWorldText, worldToChanges } from './world-io.js';
export { ENGINE_INDEXER } from './view.js';
export { storeUnwritable } from './store/index.js';
// The CLI's local runs import local-target.js directly: this index re-exports world-io.ts, which
// loads the world schemas (zod), so importing it costs start-up that a run does not need.
export * from './local-target.js';
