// Counters in the API's PostgreSQL database, shared by every replica.
import type { RateLimitCountersRepo } from './rate-limit-counters-repo.ts';
import type { CounterStore } from './rate-limiter.ts';

export class PostgresCounterStore implements CounterStore {
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

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
