// COLONY_RATE_LIMIT_ALGORITHM on every counter store: at a window boundary the fixed window lets a
// client spend its budget twice, the sliding window does not; both recover once the windows pass.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../api/app-storage.ts';
import { MemoryCounterStore } from '../../api/shared/rate-limit/memory-store.ts';
import { PostgresCounterStore } from '../../api/shared/rate-limit/postgres-store.ts';
import { RateLimiter } from '../../api/shared/rate-limit/rate-limiter.ts';
import { RedisCounterStore } from '../../api/shared/rate-limit/redis-store.ts';
import {
  type RateLimitAlgorithm,
  storeFor,
  type WindowPairStore,
} from '../../api/shared/rate-limit/sliding-window.ts';
import { type ClockedServer, planLine, startClockedServer } from '../support/checkout.ts';
import { postgresTarget, postgresUrl } from '../support/storage-targets.ts';

const WINDOW = 60_000;
const W = 28_333_334 * WINDOW; // a window start
const LIMIT = 10;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const stores: [string, () => Promise<WindowPairStore>][] = [
  ['memory', async () => new MemoryCounterStore()],
  [
    'redis',
    async () => {
      const url = process.env.TEST_REDIS_URL;
      if (!url) throw new Error('TEST_REDIS_URL is not set (run `make test`)');
      // Without an offline queue, commands before the first connection would fail (and fail open).
      const store = new RedisCounterStore(url, { timeoutMs: 1000 });
      await store.open();
      return store;
    },
  ],
  [
    'postgres',
    async () => {
      const made = await postgresTarget.create();
      const storage = await openStorage(made.target);
      cleanups.push(async () => {
        await storage.close();
        await made.dispose();
      });
      return new PostgresCounterStore(storage.rateLimitCounters);
    },
  ],
];

describe.each(stores)('%s counters', (_name, open) => {
  async function limiter(algorithm: RateLimitAlgorithm) {
    const inner = await open();
    cleanups.push(() => inner.close?.() ?? Promise.resolve());
    const clock = { now: 0 };
    const now = () => clock.now;
    // A bucket of its own: the Redis and PostgreSQL counters are shared with other tests.
    const bucket = `test-${randomUUID()}`;
    const l = new RateLimiter({
      bucket,
      limit: LIMIT,
      windowMs: WINDOW,
      store: storeFor(inner, algorithm, now),
      now,
    });
    /** How many of `n` requests at `at` are allowed. */
    const burst = async (at: number, n: number) => {
      clock.now = at;
      let allowed = 0;
      for (let i = 0; i < n; i++) if ((await l.consume('client')).allowed) allowed++;
      return allowed;
    };
    return burst;
  }

  it('fixed: a burst either side of a boundary spends the budget twice', async () => {
    const burst = await limiter('fixed');
    expect(await burst(W + 59_000, LIMIT)).toBe(LIMIT);
    expect(await burst(W + WINDOW + 1_000, LIMIT)).toBe(LIMIT);
  });

  it('sliding: the same burst is refused, as the previous window still counts', async () => {
    const burst = await limiter('sliding');
    expect(await burst(W + 59_000, LIMIT)).toBe(LIMIT);
    // 1 s into the next window, 59/60 of the last 10 hits still count: floor(9.83) = 9, room for 1.
    expect(await burst(W + WINDOW + 1_000, LIMIT)).toBe(1);
  });

  it('sliding: the previous window weighs less as it slides out, and nothing after two windows', async () => {
    const burst = await limiter('sliding');
    expect(await burst(W + 1_000, LIMIT)).toBe(LIMIT);
    // Halfway through the next window, half of the previous window's 10 still count.
    expect(await burst(W + WINDOW + 30_000, LIMIT)).toBe(LIMIT - 5);
    // Two windows later, only that window's 10 hits remain, weighted by 1/2 again.
    expect(await burst(W + 2 * WINDOW + 30_000, LIMIT)).toBe(LIMIT - 5);
    expect(await burst(W + 4 * WINDOW, LIMIT)).toBe(LIMIT);
  });
});

describe.each([
  ['postgres', () => ({ COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() })],
  ['redis', () => ({ COLONY_RATE_LIMIT_STORE: 'redis', REDIS_URL: process.env.TEST_REDIS_URL ?? '' })],
])('two replicas sharing %s', (_name, env) => {
  async function replicas(algorithm: RateLimitAlgorithm): Promise<ClockedServer[]> {
    const servers: ClockedServer[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await startClockedServer({
        ...env(),
        COLONY_CHECKOUT_RATE_LIMIT: '5',
        COLONY_RATE_LIMIT_ALGORITHM: algorithm,
      });
      cleanups.push(() => s.close());
      servers.push(s);
    }
    return servers;
  }

  /** Creates checkouts alternately on each replica from one address; returns the status codes. */
  async function creates(
    servers: ClockedServer[],
    address: string,
    n: number,
    at: number,
  ): Promise<number[]> {
    for (const s of servers) s.clock.now = at;
    const codes: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = servers[i % servers.length];
      if (!s) throw new Error('no server');
      const res = await s.app.inject({
        method: 'POST',
        url: '/checkout_sessions',
        remoteAddress: address,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ line_items: [planLine()] }),
      });
      codes.push(res.statusCode);
    }
    return codes;
  }

  it.each([
    ['fixed', [201, 201, 201, 201, 201]],
    ['sliding', [201, 429, 429, 429, 429]],
  ] as const)(
    '%s: a burst of 5 after a burst of 5 across the boundary answers %j',
    async (algorithm, after) => {
      const servers = await replicas(algorithm);
      const start = servers[0]?.clock.now ?? 0;
      const boundary = Math.ceil((start + 1) / WINDOW) * WINDOW;
      // An address of its own: the shared counters outlive the test.
      const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      expect(await creates(servers, address, 5, boundary - 1_000)).toEqual([201, 201, 201, 201, 201]);
      expect(await creates(servers, address, 5, boundary + 1_000)).toEqual(after);
    },
  );
});
