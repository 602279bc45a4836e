// Rate-limit headers on every /api/v1 answer, 429 problem+json past the limit, and budgets shared by replicas.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { postgresUrl } from '../support/storage-targets.ts';

const running: TestServer[] = [];
// A frozen clock keeps every request of a test inside one rate-limit window; a real clock makes a
// test that straddles a minute boundary see its counter reset.
let frozenAt = Date.now();
const frozen = () => frozenAt;
beforeEach(() => {
  frozenAt = Date.now();
});
async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer(env, { now: frozen });
  running.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const fromIp = (s: TestServer, url: string, ip: string) =>
  s.app.inject({ method: 'GET', url, remoteAddress: ip });

describe('the /api/v1 rate limit', () => {
  it('sends X-RateLimit headers on successes, problems and unknown routes alike', async () => {
    const s = await server({ COLONY_API_RATE_LIMIT: '50' });
    for (const url of ['/api/v1', '/api/v1/pricing?plan=nope', '/api/v1/unknown']) {
      const res = await fromIp(s, url, '10.0.0.1');
      expect(res.headers['x-ratelimit-limit']).toBe('50');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(50);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
  });

  it('answers 429 problem+json with Retry-After once the budget is spent, per client address', async () => {
    const s = await server({ COLONY_API_RATE_LIMIT: '3' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fromIp(s, '/api/v1/pricing', '10.0.0.2')).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await fromIp(s, '/api/v1/pricing', '10.0.0.2');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['retry-after']).toBe(refused.headers['x-ratelimit-reset']);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect((await fromIp(s, '/api/v1/pricing', '10.0.0.3')).statusCode).toBe(200);
  });

  it('leaves health, metrics and discovery outside the API budget', async () => {
    const s = await server({ COLONY_API_RATE_LIMIT: '1' });
    await fromIp(s, '/api/v1', '10.0.0.4');
    expect((await fromIp(s, '/api/v1', '10.0.0.4')).statusCode).toBe(429);
    expect((await fromIp(s, '/healthz', '10.0.0.4')).statusCode).toBe(200);
    expect((await fromIp(s, '/llms.txt', '10.0.0.4')).statusCode).toBe(200);
  });

  it.each([
    ['postgres', () => ({ COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() })],
    ['redis', () => ({ COLONY_RATE_LIMIT_STORE: 'redis', REDIS_URL: process.env.TEST_REDIS_URL ?? '' })],
  ])('shares one budget between two replicas through %s', async (_name, env) => {
    // A unique address per run keeps counters of earlier runs (same frozen window) out of the picture.
    const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const a = await server({ COLONY_API_RATE_LIMIT: '4', ...env() });
    const b = await server({ COLONY_API_RATE_LIMIT: '4', ...env() });
    const answers = [];
    for (const s of [a, b, a, b, a, b]) answers.push((await fromIp(s, '/api/v1', ip)).statusCode);
    expect(answers).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
