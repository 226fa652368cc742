/**
 * `read` of each key, yielded in the keys' order, at most `limit` read ahead of the one the
 * caller holds: memory holds that window, however many keys. A key asked for again while its
 * earlier read is in the window shares that read. A failure is thrown when its turn comes, never
 * unhandled before.
 */
export async function* inOrderAhead<K, T>(
  keys: readonly K[],
  limit: number,
  read: (key: K) => Promise<T>,
): AsyncGenerator<T> {
  const window: { key: K; value: Promise<T> }[] = [];
  let next = 0;
  const readNext = (): void => {
    const key = keys[next++] as K;
    const value = window.find((held) => held.key === key)?.value ?? read(key);
    value.catch(() => undefined);
    window.push({ key, value });
  };
  while (next < keys.length && window.length < Math.max(1, limit)) readNext();
  while (window.length > 0) {
    const value = await (window.shift() as { value: Promise<T> }).value;
    if (next < keys.length) readNext();
    yield value;
  }
}
