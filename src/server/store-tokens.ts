import type { Store } from '../engine/store/contract.js';

/**
 * The accepted tokens of a store's world (Settings.ApiTokens), read from the store's live state
 * on every call, so a token added or removed by another examctl process is honoured once the
 * store has caught up (every engine transaction catches up first). The store holds them as
 * digests (`sha256:<hex>`, see worldToChanges); a store made by an earlier examctl may still hold
 * plain ones. The server's check takes both forms, so they are passed on as they are.
 */
export function storeTokens(store: Pick<Store, 'state'>): () => string[] {
  // A stored value is replaced, never changed in place: the same array is the same list.
  let seen: unknown;
  let list: string[] = [];
  return () => {
    const settings = store.state.get('settings')?.get('settings') as { ApiTokens?: unknown } | undefined;
    const tokens = settings?.ApiTokens;
    if (tokens !== seen) {
      seen = tokens;
      list = Array.isArray(tokens) ? tokens.filter((t): t is string => typeof t === 'string' && t !== '') : [];
    }
    return list;
  };
}
