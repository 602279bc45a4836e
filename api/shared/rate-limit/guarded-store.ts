// A shared counter store (Redis, PostgreSQL) bounded in time, whose outages are noticed once each.
import { withTimeout } from '../with-timeout.ts';
import type { CounterStore } from './rate-limiter.ts';

/** What a shared store may add to CounterStore: a first connection and a health check. */
export interface SharedCounterStore extends CounterStore {
  open?(): Promise<void>;
  ping(): Promise<void>;
}

export interface StoreHealth {
  up: boolean;
  /** When the current state began (epoch ms). */
  since: number;
  /** The failure that began the outage; never carries a URL or a password. */
  error?: string;
}

export interface GuardedStoreOptions {
  timeoutMs: number;
  /** What counts the hits, when not the store itself: a sliding-window view of it (sliding-window.ts). */
  counter?: CounterStore;
  /** Called on each change of state only: once when an outage begins, once when it ends. */
  onChange?: (health: StoreHealth) => void;
  /** Called for every hit that failed, with the limiter's bucket (what the limiter lets through). */
  onFailure?: (bucket: string) => void;
  now?: () => number;
}

export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
}

export class GuardedCounterStore implements CounterStore {
  readonly name: string;
  private readonly inner: SharedCounterStore;
  private readonly counter: CounterStore;
  private readonly opts: GuardedStoreOptions;
  private readonly now: () => number;
  private state: StoreHealth;

  constructor(inner: SharedCounterStore, opts: GuardedStoreOptions) {
    this.inner = inner;
    this.counter = opts.counter ?? inner;
    this.name = inner.name;
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.state = { up: true, since: this.now() };
  }

  get health(): StoreHealth {
    return this.state;
  }

  async open(): Promise<void> {
    await this.inner.open?.();
  }

  hit(key: string, windowStart: number, cost: number, windowMs: number): Promise<number> {
    return this.hitThrough(this.counter, key, windowStart, cost, windowMs);
  }

  /**
   * The same store counting exact fixed windows whatever the limits' algorithm, bounded and watched
   * alike: for counters that are not limits (the sign-in throttle keeps tries and times in them).
   */
  exact(): CounterStore {
    return {
      name: this.name,
      hit: (key, windowStart, cost, windowMs) =>
        this.hitThrough(this.inner, key, windowStart, cost, windowMs),
    };
  }

  private async hitThrough(
    counter: CounterStore,
    key: string,
    windowStart: number,
    cost: number,
    windowMs: number,
  ): Promise<number> {
    try {
      const count = await this.bounded(Promise.resolve(counter.hit(key, windowStart, cost, windowMs)));
      this.mark(undefined);
      return count;
    } catch (err) {
      this.mark(err);
      this.opts.onFailure?.(key.slice(0, key.indexOf(':')));
      throw err;
    }
  }

  /** A round trip to the store, bounded like a hit; its outcome updates the health too. */
  async ping(): Promise<StoreHealth> {
    try {
      await this.bounded(this.inner.ping());
      this.mark(undefined);
    } catch (err) {
      this.mark(err);
    }
    return this.state;
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  private mark(err: unknown): void {
    const up = err === undefined;
    if (up === this.state.up) return;
    this.state = up ? { up, since: this.now() } : { up, since: this.now(), error: describe(err) };
    this.opts.onChange?.(this.state);
  }

  private bounded<T>(p: Promise<T>): Promise<T> {
    const { timeoutMs } = this.opts;
    return withTimeout(p, timeoutMs, () => new StoreTimeoutError(`no answer within ${timeoutMs} ms`));
  }
}

// Driver messages name hosts and ports at most; the class and message are enough to act on.
function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 200);
  return String(err).slice(0, 200);
}
