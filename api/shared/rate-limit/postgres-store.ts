// Counters in the API's PostgreSQL database, shared by every replica.
import type { Poller } from '../poller-gate.ts';
import type { RateLimitCountersRepo } from './rate-limit-counters-repo.ts';
import { alternatingKey, type WindowPair, type WindowPairStore } from './sliding-window.ts';

export class PostgresCounterStore implements WindowPairStore {
  readonly name = 'postgres';
  private readonly repo: RateLimitCountersRepo;

  constructor(repo: RateLimitCountersRepo) {
    this.repo = repo;
  }

  /** Deletes expired rows; one replica's purge serves all, so it runs as a cluster-wide poller. */
  purger(everyMs = 60_000): Poller {
    let timer: NodeJS.Timeout | undefined;
    return {
      start: () => {
        timer ??= setInterval(() => {
          this.repo.purgeExpired(Date.now()).catch(() => {});
        }, everyMs);
        timer.unref();
      },
      stop: () => {
        clearInterval(timer);
        timer = undefined;
      },
    };
  }

  hit(key: string, windowStart: number, cost: number, windowMs: number): Promise<number> {
    return this.repo.hit(key, windowStart, cost, windowStart + windowMs);
  }

  async ping(): Promise<void> {
    await this.repo.ping();
  }

  /** Sliding window: one statement adds to this window's row and reads the previous window's. */
  hitPair(key: string, windowStart: number, cost: number, windowMs: number): Promise<WindowPair> {
    return this.repo.hitPair(
      { key: alternatingKey(key, windowStart, windowMs), windowStart },
      { key: alternatingKey(key, windowStart - windowMs, windowMs), windowStart: windowStart - windowMs },
      cost,
      windowStart + 2 * windowMs,
    );
  }

  async close(): Promise<void> {}
}
