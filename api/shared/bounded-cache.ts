// Caches whose keys come from requests (query strings, pages, client addresses) are unbounded in
// principle; these start over when full instead of tracking recency: a working set smaller than the
// bound keeps hitting, and a scan of many keys costs rebuilds, never unbounded memory.

/** Adds `key` to `cache`, emptying it first when it already holds `max` entries. */
export function setBounded<K, V>(cache: Map<K, V>, key: K, value: V, max: number): void {
  if (cache.size >= max) cache.clear();
  cache.set(key, value);
}
