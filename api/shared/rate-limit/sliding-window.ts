// Sliding-window limits by the two-window approximation: a hit counts against its fixed window plus
// the share of the previous window that still overlaps the last windowMs, so no boundary doubles a budget.
import type { CounterStore } from './rate-limiter.ts';

export type RateLimitAlgorithm = 'fixed' | 'sliding';

/** A key's counter in the current window (after the hit) and in the window before it. */
export interface WindowPair {
  current: number;
  previous: number;
}

/** A store that adds to the current window and reads the previous one in one step (atomic for shared stores). */
export interface WindowPairStore extends CounterStore {
  hitPair(key: string, windowStart: number, cost: number, windowMs: number): WindowPair | Promise<WindowPair>;
}

/**
 * The estimated count over the last windowMs: the current window's hits plus the previous window's,
 * weighted by how much of it the sliding window still covers (assuming they were spread evenly).
 */
export function slidingCount(pair: WindowPair, elapsedMs: number, windowMs: number): number {
  const overlap = Math.min(1, Math.max(0, 1 - elapsedMs / windowMs));
  return pair.current + Math.floor(pair.previous * overlap);
}

/**
 * The key of one window among two that alternate: stores holding one counter per key keep the previous
 * window's counter next to the current one's this way.
 */
export function alternatingKey(key: string, windowStart: number, windowMs: number): string {
  return `${key}~${Math.floor(windowStart / windowMs) % 2}`;
}

/** Presents a WindowPairStore to the RateLimiter as a CounterStore whose count is the sliding estimate. */
export class SlidingWindowStore implements CounterStore {
  readonly name: string;
  private readonly inner: WindowPairStore;
  private readonly now: () => number;

  constructor(inner: WindowPairStore, now: () => number = Date.now) {
    this.inner = inner;
    this.now = now;
    this.name = inner.name;
  }

  hit(key: string, windowStart: number, cost: number, windowMs: number): number | Promise<number> {
    const pair = this.inner.hitPair(key, windowStart, cost, windowMs);
    const estimate = (p: WindowPair) => slidingCount(p, this.now() - windowStart, windowMs);
    return pair instanceof Promise ? pair.then(estimate) : estimate(pair);
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

/** The store the limiters use for the configured algorithm. */
export function storeFor(
  store: WindowPairStore,
  algorithm: RateLimitAlgorithm,
  now?: () => number,
): CounterStore {
  return algorithm === 'sliding' ? new SlidingWindowStore(store, now) : store;
}
