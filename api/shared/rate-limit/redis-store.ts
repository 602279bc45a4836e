// Counters in Redis, shared by every replica; one key per client and window, expiring with it.
import { Redis } from 'ioredis';
import type { WindowPair, WindowPairStore } from './sliding-window.ts';

export class RedisCounterStore implements WindowPairStore {
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

  /** Sliding window: one MULTI adds to this window's key (kept through the next window) and reads the last one's. */
  async hitPair(key: string, windowStart: number, cost: number, windowMs: number): Promise<WindowPair> {
    const redisKey = `colony:rl:${key}:${windowStart}`;
    const results = await this.redis
      .multi()
      .incrby(redisKey, cost)
      .pexpire(redisKey, 2 * windowMs + 1000)
      .get(`colony:rl:${key}:${windowStart - windowMs}`)
      .exec();
    const failed = results?.find(([err]) => err)?.[0];
    if (!results || failed) throw failed ?? new Error('redis returned no result');
    return { current: Number(results[0]?.[1]), previous: Number(results[2]?.[1] ?? 0) };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
