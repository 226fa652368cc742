export { StoreExistsError, createStore, storeUnwritable } from './create-store.js';
export { storeExists } from './current-file.js';
export { openStore } from './file-store.js';
