export { StoreExistsError, createStore, storeExists, storeUnwritable } from './create-store.js';
export { openStore } from './file-store.js';
