// /api/snapshots without a cluster, under the shared /api/v1 rate limit, and with bodies it refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOTSTRAP, bearer } from '../support/backups-office.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let s: TestServer;
const auth = bearer(BOOTSTRAP);

beforeAll(async () => {
  s = await startTestServer({
    COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
    COLONY_BACKUPS_SWEEP_SECONDS: '0',
    COLONY_API_RATE_LIMIT: '6',
    COLONY_BODY_LIMIT_BYTES: '1024',
  });
});
afterAll(async () => {
  await s?.close();
});

describe('/api/snapshots without a cluster and at its limits', () => {
  it('answers 503 for a snapshot when no cluster is configured, and still lists', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: auth,
      payload: { office: 'acme' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'service_unavailable',
      detail: expect.stringContaining('KUBECONFIG'),
    });
    const list = await s.app.inject({ url: '/api/snapshots', headers: auth });
    expect(list.json()).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a body over the limit (413) and one that is not JSON (415)', async () => {
    const big = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: auth,
      payload: { office: 'acme', description: 'x'.repeat(2000) },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('payload_too_large');
    const text = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'office=acme',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('unsupported_media_type');
  });

  it('shares the /api/v1 budget: rate-limit headers on every answer, then 429 with Retry-After', async () => {
    let last = await s.app.inject({ url: '/api/snapshots', headers: auth });
    expect(Number(last.headers['x-ratelimit-limit'])).toBe(6);
    while (last.statusCode !== 429) last = await s.app.inject({ url: '/api/snapshots', headers: auth });
    expect(last.headers['content-type']).toMatch(/problem\+json/);
    expect(last.json().code).toBe('rate_limited');
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect((await s.app.inject({ url: '/api/v1/pricing' })).statusCode).toBe(429);
  });
});
