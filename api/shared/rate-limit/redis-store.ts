// Counters in Redis, shared by every replica; one key per client and window, expiring with it.
import { Redis } from 'ioredis';
import type { WindowPair, WindowPairStore } from './sliding-window.ts';

export interface RedisCounterStoreOptions {
  /** Longest a command may take before it fails (the limiter then lets the request through). */
  timeoutMs: number;
}

// Reconnect quickly at first, then every 2 s at most, for as long as the outage lasts.
const reconnectDelay = (attempt: number): number => Math.min(50 * 2 ** attempt, 2_000);

export class RedisCounterStore implements WindowPairStore {
  readonly name = 'redis';
  private readonly redis: Redis;

  constructor(url: string, opts: RedisCounterStoreOptions) {
    // No offline queue and no per-command retries: while Redis is away a command fails at once
    // instead of waiting for a reconnection, so no request ever queues behind the outage.
    this.redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: opts.timeoutMs,
      connectTimeout: Math.max(1_000, opts.timeoutMs * 4),
      retryStrategy: reconnectDelay,
    });
    // Connection errors surface on the commands that need them; the client reconnects by itself.
    this.redis.on('error', () => {});
  }

  /** The first connection, so a fresh server counts from its first request; Redis down still starts. */
  async open(): Promise<void> {
    await this.redis.connect().catch(() => {});
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

  async ping(): Promise<void> {
    await this.redis.ping();
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
