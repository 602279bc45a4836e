// POST /api/v1/batch and GET /api/v1/me through the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

const TOKEN = 'bootstrap-token-for-tests-0123456789';
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ COLONY_BOOTSTRAP_TOKEN: TOKEN, COLONY_API_RATE_LIMIT: '1000' });
});
afterAll(() => s.close());

const batch = (payload: unknown, headers: Record<string, string> = {}) =>
  s.app.inject({ method: 'POST', url: '/api/v1/batch', payload: payload as object, headers });

describe('POST /api/v1/batch', () => {
  it('runs GET requests in-process and answers each in input order with its own status', async () => {
    const res = await batch({
      requests: [
        { id: 'pro', path: '/api/v1/pricing?plan=pro' },
        { id: 'missing', method: 'GET', path: '/api/v1/pricing?plan=nope' },
        { id: 'skills', path: '/api/v1/skills?limit=2' },
        { path: '/api/v1/nowhere' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const { responses } = res.json();
    expect(responses.map((r: { status: number }) => r.status)).toEqual([200, 404, 200, 404]);
    expect(responses.map((r: { id?: string }) => r.id)).toEqual(['pro', 'missing', 'skills', undefined]);
    expect(responses[0].body.plans[0].slug).toBe('pro');
    expect(responses[0].headers['content-type']).toMatch(/application\/json/);
    expect(responses[1].headers['content-type']).toMatch(/application\/problem\+json/);
    expect(responses[1].body.code).toBe('not_found');
    expect(responses[2].body.data).toHaveLength(2);
  });

  it('passes the batch Authorization header to sub-requests', async () => {
    const res = await batch({ requests: [{ path: '/api/v1/me' }] }, { authorization: `Bearer ${TOKEN}` });
    expect(res.json().responses[0]).toMatchObject({ status: 200, body: { type: 'service_auth' } });
  });

  it('accepts exactly 20 requests and refuses 21', async () => {
    const twenty = Array.from({ length: 20 }, () => ({ path: '/api/v1' }));
    expect((await batch({ requests: twenty })).statusCode).toBe(200);
    const res = await batch({ requests: [...twenty, { path: '/api/v1' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ location: 'body.requests' });
  });

  it.each([
    [{ requests: [{ method: 'POST', path: '/api/v1/jobs' }] }, 'body.requests.0.method'],
    [{ requests: [{ path: '/healthz' }] }, 'body.requests.0.path'],
    [{ requests: [{ path: `${TEST_BASE_URL}/api/v1` }] }, 'body.requests.0.path'],
    [{ requests: [{ path: '/api/v1/../healthz' }] }, 'body.requests.0.path'],
    [{ requests: [] }, 'body.requests'],
    [{ requests: 'all' }, 'body.requests'],
  ])('refuses %j with 400 naming %s', async (payload, location) => {
    const res = await batch(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { location: string }) => e.location)).toContain(location);
  });

  it('charges one unit of the rate limit per sub-request', async () => {
    const frozenAt = Date.now(); // both batches must land in one rate-limit window
    const tight = await startTestServer({ COLONY_API_RATE_LIMIT: '5' }, { now: () => frozenAt });
    try {
      const run = (n: number) =>
        tight.app.inject({
          method: 'POST',
          url: '/api/v1/batch',
          payload: { requests: Array.from({ length: n }, () => ({ path: '/api/v1' })) },
        });
      const first = await run(4);
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      const second = await run(2);
      expect(second.statusCode).toBe(429);
      expect(second.json().code).toBe('rate_limited');
      expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await tight.close();
    }
  });
});

describe('GET /api/v1/me', () => {
  const challenge = `Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`;

  it('answers 401 with the resource_metadata challenge when no token is sent', async () => {
    const res = await s.app.inject({ url: '/api/v1/me' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe(challenge);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json().code).toBe('unauthorized');
  });

  it('answers 401 invalid_token for a token it does not know', async () => {
    const res = await s.app.inject({
      url: '/api/v1/me',
      headers: { authorization: 'Bearer not-a-real-token' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(new RegExp(`^${challenge}, error="invalid_token"`));
  });

  it('never accepts a token in the query string, even a valid one', async () => {
    const res = await s.app.inject({ url: `/api/v1/me?access_token=${TOKEN}` });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
  });

  it('refuses a request that sends a token in the header and in the query string at once (RFC 6750 3.1)', async () => {
    const res = await s.app.inject({
      url: `/api/v1/me?access_token=${TOKEN}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
    expect(res.json().detail).toMatch(/one way/);
    expect(res.body).not.toContain(TOKEN);
  });

  it('answers 401 for a malformed Authorization header', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${TOKEN} extra`]) {
      const res = await s.app.inject({ url: '/api/v1/me', headers: { authorization } });
      expect(res.statusCode).toBe(401);
    }
  });

  it('returns the operator profile for the bootstrap token', async () => {
    const res = await s.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: 'operator:bootstrap',
      type: 'service_auth',
      offices: '*',
      credential: 'bootstrap_token',
    });
    expect(JSON.stringify(res.json())).not.toContain(TOKEN);
  });
});
