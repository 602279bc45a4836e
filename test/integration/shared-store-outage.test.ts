// A Redis outage mid-run: rate-limited requests still answer at once (the limiter fails open), the
// status and metrics say so, readiness does not change, and limits count again once Redis is back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type PrivateRedis, startPrivateRedis } from '../support/redis-server.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const LIMIT = 3;
// A bound on a failure mode (the old client queued commands for about 15 s), not a performance figure.
const ANSWER_BOUND_MS = 1_000;

describe.each(storageTargets)('a Redis outage on $name', (target) => {
  let redis: PrivateRedis;
  let s: TestServer;
  // A frozen clock keeps every request inside one rate-limit window.
  let frozenAt = Date.now();
  let client = 0;
  const nextClient = () => `10.9.0.${++client}`;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    s = await startTestServerOn(
      target,
      { COLONY_RATE_LIMIT_STORE: 'redis', REDIS_URL: redis.url, COLONY_API_RATE_LIMIT: String(LIMIT) },
      { now: () => frozenAt },
    );
  });
  afterAll(async () => {
    await s?.close();
    await redis?.stop();
  });
  beforeEach(() => {
    frozenAt = Date.now();
  });

  /** LIMIT + 2 requests from one new client address: their statuses and how long each took. */
  async function burst(): Promise<{ statuses: number[]; slowestMs: number }> {
    const ip = nextClient();
    const statuses: number[] = [];
    let slowestMs = 0;
    for (let i = 0; i < LIMIT + 2; i++) {
      const started = performance.now();
      const res = await s.app.inject({ url: '/api/v1/pricing', remoteAddress: ip });
      slowestMs = Math.max(slowestMs, performance.now() - started);
      statuses.push(res.statusCode);
    }
    return { statuses, slowestMs };
  }
  const storeStatus = async () => {
    const res = await s.app.inject({ url: '/api/v1/status' });
    const body = res.json() as {
      status: string;
      services: { name: string; status: string; detail?: string }[];
    };
    return { overall: body.status, store: body.services.find((x) => x.name === 'rate-limit-store') };
  };
  const metric = async (series: string) => {
    const text = (await s.app.inject({ url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const enforced = [200, 200, 200, 429, 429];
  const open = [200, 200, 200, 200, 200];

  it('counts requests while Redis answers', async () => {
    expect((await burst()).statuses).toEqual(enforced);
    expect((await storeStatus()).store).toMatchObject({ status: 'operational' });
    expect(await metric('colony_dependency_up{dependency="redis"}')).toBe(1);
  });

  it('lets every request through at once while Redis is down, and says so', async () => {
    await redis.kill();
    const failedBefore = (await metric('colony_rate_limit_fail_open_total{bucket="api"}')) ?? 0;
    const { statuses, slowestMs } = await burst();
    expect(statuses).toEqual(open);
    expect(slowestMs).toBeLessThan(ANSWER_BOUND_MS);

    const { overall, store } = await storeStatus();
    expect(overall).toBe('degraded');
    expect(store?.status).toBe('degraded');
    expect(store?.detail).toMatch(/^redis failing since .*without rate limits/);
    expect((await s.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect(await metric('colony_dependency_up{dependency="redis"}')).toBe(0);
    expect(await metric('colony_rate_limit_fail_open_total{bucket="api"}')).toBeGreaterThanOrEqual(
      failedBefore + statuses.length,
    );
  });

  it('counts again once Redis is back on the same address', async () => {
    await redis.restart();
    await eventually(async () => (await storeStatus()).store?.status === 'operational');
    expect((await burst()).statuses).toEqual(enforced);
    expect(await metric('colony_dependency_up{dependency="redis"}')).toBe(1);
  });

  it('does not wait on a Redis that accepts connections but never answers', async () => {
    redis.pause();
    try {
      const { statuses, slowestMs } = await burst();
      expect(statuses).toEqual(open);
      expect(slowestMs).toBeLessThan(ANSWER_BOUND_MS);
      expect((await storeStatus()).store?.status).toBe('degraded');
      expect((await s.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    } finally {
      redis.resume();
    }
    await eventually(async () => (await storeStatus()).store?.status === 'operational');
    expect((await burst()).statuses).toEqual(enforced);
  });
});
