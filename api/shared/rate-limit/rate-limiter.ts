// Fixed-window rate limiting over a pluggable counter store; knows nothing of HTTP.

/**
 * Adds `cost` to the counter of `key` in the window starting at `windowStart`; returns the new total.
 * An in-process store may answer synchronously, which spares every request a promise.
 */
export interface CounterStore {
  readonly name: string;
  hit(key: string, windowStart: number, cost: number, windowMs: number): number | Promise<number>;
  close?(): Promise<void>;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (what X-RateLimit-Reset and Retry-After carry). */
  resetSeconds: number;
}

export interface RateLimiterOptions {
  /** Budget name, so several limiters can share one store without sharing counters. */
  bucket: string;
  limit: number;
  windowMs: number;
  store: CounterStore;
  /**
   * When the store fails or times out: true (the default) lets the request through, as if it were
   * the first of its window; false rejects with the store's error. The store reports its outages.
   */
  failOpen?: boolean;
  now?: () => number;
}

export class RateLimiter {
  readonly limit: number;
  private readonly opts: RateLimiterOptions;
  private readonly now: () => number;

  constructor(opts: RateLimiterOptions) {
    this.opts = opts;
    this.limit = opts.limit;
    this.now = opts.now ?? Date.now;
  }

  async consume(clientKey: string, cost = 1): Promise<RateLimitDecision> {
    return this.consumeNow(clientKey, cost);
  }

  /** Like consume(), but answers synchronously when the store does. */
  consumeNow(clientKey: string, cost = 1): RateLimitDecision | Promise<RateLimitDecision> {
    const { windowMs, bucket, store } = this.opts;
    const now = this.now();
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const count = store.hit(`${bucket}:${clientKey}`, windowStart, cost, windowMs);
    return typeof count === 'number'
      ? this.decide(count, windowStart, now)
      : count.then(
          (c) => this.decide(c, windowStart, now),
          (err) => this.storeFailed(err, windowStart, now),
        );
  }

  // An unavailable shared store must not stall or refuse the API: the limit is simply not enforced.
  private storeFailed(err: unknown, windowStart: number, now: number): RateLimitDecision {
    if (this.opts.failOpen === false) throw err;
    return this.decide(0, windowStart, now);
  }

  private decide(count: number, windowStart: number, now: number): RateLimitDecision {
    const { windowMs, limit } = this.opts;
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
    };
  }
}
