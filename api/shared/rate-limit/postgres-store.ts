// Counters in the API's PostgreSQL database, shared by every replica.
import type { RateLimitCountersRepo } from './rate-limit-counters-repo.ts';
import { alternatingKey, type WindowPair, type WindowPairStore } from './sliding-window.ts';

export class PostgresCounterStore implements WindowPairStore {
  readonly name = 'postgres';
  private readonly repo: RateLimitCountersRepo;
  private readonly sweeper: NodeJS.Timeout;

  constructor(repo: RateLimitCountersRepo, sweepEveryMs = 60_000) {
    this.repo = repo;
    this.sweeper = setInterval(() => {
      this.repo.purgeExpired(Date.now()).catch(() => {});
    }, sweepEveryMs);
    this.sweeper.unref();
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

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
