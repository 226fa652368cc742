import type { Store } from '../engine/store/contract.js';

/**
 * The accepted tokens of a store's world, read from its state caught up on every call, so a token
 * another examctl process added or removed (or a store replaced) is honoured. Digests or
 * plain (docs/engine-rules.md, "API tokens"): passed on as they are, the check takes both.
 */
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
