// Counters in Redis, shared by every replica; one key per client and window, expiring with it.
import { Redis } from 'ioredis';
import type { CounterStore } from './rate-limiter.ts';

export class RedisCounterStore implements CounterStore {
  readonly name = 'redis';
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    // Connection errors surface on the commands that need it; the client reconnects by itself.
    this.redis.on('error', () => {});
  }

  async hit(key: string, windowStart: number, cost: number, windowMs: number): Promise<number> {
    const redisKey = `colony:rl:${key}:${windowStart}`;
    const results = await this.redis
      .multi()
      .incrby(redisKey, cost)
      .pexpire(redisKey, windowMs + 1000)
      .exec();
    const [err, count] = results?.[0] ?? [new Error('redis returned no result'), null];
    if (err) throw err;
    return Number(count);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
