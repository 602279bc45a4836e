// A rate-limited work queue of reconcile keys: each key is queued at most once, is never handed to
// two workers at the same time, and can be delayed or retried with per-key exponential backoff.

export interface WorkQueueOptions {
  /** First retry delay of a failing key; it doubles on each failure up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Overall retry budget (a token bucket) so that many failing keys cannot flood the API server. */
  qps?: number;
  burst?: number;
  now?: () => number;
}

export class WorkQueue {
  /** Keys in line, in order; `later` holds periodic-resync keys, served only when `queue` is empty. */
  private readonly queue = new Set<string>();
  private readonly later = new Set<string>();
  /** Keys waiting to be processed (queued, or re-added while being processed). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly opts: Required<WorkQueueOptions>;
  private tokens: number;
  private tokensAt: number;
  private shuttingDown = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.opts = { baseDelayMs: 100, maxDelayMs: 300_000, qps: 10, burst: 100, now: Date.now, ...opts };
    this.tokens = this.opts.burst;
    this.tokensAt = this.opts.now();
  }

  /**
   * Queues a key once. `lowPriority` keys (a periodic resync re-checking everything) wait behind
   * every normal key, so a resync of thousands of objects never delays a real change.
   */
  add(key: string, lowPriority = false): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) {
      // Already waiting: a normal add promotes a key that was queued for later.
      if (!lowPriority && this.later.delete(key)) this.queue.add(key);
      return;
    }
    this.dirty.add(key);
    if (this.processing.has(key)) return; // done() puts it back in line
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      (lowPriority ? this.later : this.queue).add(key);
    }
  }

  private next(): string | undefined {
    for (const line of [this.queue, this.later]) {
      for (const key of line) {
        line.delete(key);
        return key;
      }
    }
    return undefined;
  }

  /** Resolves with the next key to process, or undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.next();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was added again meanwhile, it is queued now. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Adds the key after `ms`; a pending earlier add for the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.opts.now() + ms;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Re-adds a key that failed, after its backoff (and the overall budget) allow. */
  addRateLimited(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const perKey = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** n);
    const delay = Math.max(perKey, this.bucketDelay());
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears a key's failure count after it succeeded. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Keys waiting to be processed (the queue-depth metric). */
  get length(): number {
    return this.queue.size + this.later.size;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  // Token bucket: refill at qps up to burst; a retry that finds no token waits for the next one.
  private bucketDelay(): number {
    const now = this.opts.now();
    this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.tokensAt) / 1000) * this.opts.qps);
    this.tokensAt = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.opts.qps) * 1000);
  }
}
