// The public read operations, through the real server: happy paths, narrowing and refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemSchema } from '../../api/public/schemas.ts';
import { startTestServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const get = (url: string) => s.app.inject({ method: 'GET', url });

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = problemSchema.parse(res.json());
  expect(body).toMatchObject({ status, code, type: `${TEST_BASE_URL}/problems/${code}` });
  return body;
}

describe('GET /api/v1', () => {
  it('links to every resource and says the environment is production', async () => {
    const res = await get('/api/v1');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.environment).toBe('production');
    for (const name of ['status', 'pricing', 'skills', 'catalog', 'jobs', 'batch', 'me', 'openapi']) {
      expect(body.links[name].href).toMatch(new RegExp(`^${TEST_BASE_URL}/`));
    }
  });

  it('says sandbox when COLONY_ENVIRONMENT=sandbox', async () => {
    const sandbox = await startTestServer({ COLONY_ENVIRONMENT: 'sandbox' });
    try {
      expect((await sandbox.app.inject({ url: '/api/v1' })).json().environment).toBe('sandbox');
    } finally {
      await sandbox.close();
    }
  });
});

describe('GET /api/v1/status', () => {
  it('reports the api and the database from real probes', async () => {
    const body = (await get('/api/v1/status')).json();
    expect(body.status).toBe('operational');
    const names = body.services.map((x: { name: string }) => x.name);
    expect(names).toEqual(['api', 'database']);
    const db = body.services[1];
    expect(db.status).toBe('operational');
    expect(db.detail).toMatch(/^sqlite round trip/);
    expect(db.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('narrows to one service', async () => {
    const body = (await get('/api/v1/status?service=database')).json();
    expect(body.services).toHaveLength(1);
    expect(body.services[0].name).toBe('database');
  });

  it('answers 404 problem+json for an unknown service', async () => {
    const p = expectProblem(await get('/api/v1/status?service=nope'), 404, 'not_found');
    expect(p.detail).toContain('api, database');
  });
});

describe('GET /api/v1/pricing', () => {
  it('lists plans with allowances, add-ons and usage charging', async () => {
    const body = (await get('/api/v1/pricing')).json();
    expect(body.plans.map((p: { slug: string }) => p.slug)).toEqual(['starter', 'pro', 'team']);
    expect(body.plans[1]).toMatchObject({
      monthly: { itemId: 'plan_pro_monthly', amount: 9900, currency: 'usd' },
      annual: { itemId: 'plan_pro_annual', amount: 99000 },
      credits: { monthlyAllowance: 5000 },
      entitlements: ['office_services', 'task_templates'],
    });
    expect(body.addOns[0]).toMatchObject({ id: 'addon_backups', amount: 1500, entitlements: ['backups'] });
    expect(body.usage.model).toBe('overage');
    expect(body.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('narrows to one plan', async () => {
    const body = (await get('/api/v1/pricing?plan=team')).json();
    expect(body.plans).toHaveLength(1);
    expect(body.plans[0].slug).toBe('team');
  });

  it('answers 404 problem+json for an unknown slug', async () => {
    const p = expectProblem(await get('/api/v1/pricing?plan=platinum'), 404, 'not_found');
    expect(p.detail).toContain('platinum');
    expect(p.instance).toBe('/api/v1/pricing');
  });

  it('refuses unknown query parameters', async () => {
    const p = expectProblem(await get('/api/v1/pricing?plans=pro'), 400, 'invalid_request');
    expect(p.errors?.[0]?.location).toBe('query');
  });
});

describe('GET /api/v1/commerce/catalog', () => {
  it('offers every plan monthly and annually plus Backups, in integer cents USD', async () => {
    const body = (await get('/api/v1/commerce/catalog')).json();
    const ids = body.items.map((i: { id: string }) => i.id);
    expect(ids).toEqual([
      'plan_starter_monthly',
      'plan_starter_annual',
      'plan_pro_monthly',
      'plan_pro_annual',
      'plan_team_monthly',
      'plan_team_annual',
      'addon_backups',
    ]);
    for (const item of body.items) {
      expect(Number.isInteger(item.unitAmount)).toBe(true);
      expect(item.currency).toBe('usd');
    }
    const pricing = (await get('/api/v1/pricing')).json();
    expect(body.items.find((i: { id: string }) => i.id === 'plan_team_annual').unitAmount).toBe(
      pricing.plans[2].annual.amount,
    );
  });
});

describe('GET /api/v1/skills', () => {
  it('returns the published skills, 20 by default, in name order', async () => {
    const body = (await get('/api/v1/skills')).json();
    expect(body.limit).toBe(20);
    expect(body.total).toBeGreaterThanOrEqual(8);
    const names = body.data.map((x: { name: string }) => x.name);
    expect(names).toEqual([...names].sort());
    expect(body.data[0].url).toBe(`${TEST_BASE_URL}/.well-known/agent-skills/${names[0]}/SKILL.md`);
    expect(body.data[0].digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('walks every skill exactly once by following nextCursor', async () => {
    const all = (await get('/api/v1/skills?limit=100')).json();
    const seen: string[] = [];
    let url: string | null = '/api/v1/skills?limit=3';
    while (url) {
      const page: { data: { name: string }[]; nextCursor: string | null } = (await get(url)).json();
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((x: { name: string }) => x.name));
      url = page.nextCursor ? `/api/v1/skills?limit=3&cursor=${page.nextCursor}` : null;
    }
    expect(seen).toEqual(all.data.map((x: { name: string }) => x.name));
    expect(all.nextCursor).toBeNull();
  });

  it('still honours the legacy offset', async () => {
    const all = (await get('/api/v1/skills?limit=100')).json();
    const page = (await get('/api/v1/skills?offset=2&limit=2')).json();
    expect(page.data.map((x: { name: string }) => x.name)).toEqual(
      all.data.slice(2, 4).map((x: { name: string }) => x.name),
    );
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=-5', 'query.limit'],
    ['offset=1.5', 'query.offset'],
    ['cursor=x&offset=1', 'query.cursor'],
  ])('refuses %s with 400 naming %s', async (qs, location) => {
    const p = expectProblem(await get(`/api/v1/skills?${qs}`), 400, 'invalid_request');
    expect(p.errors?.map((e) => e.location)).toContain(location);
  });

  it('refuses a cursor it did not issue', async () => {
    for (const bad of ['not-a-cursor', Buffer.from('{"v":2,"after":"a"}').toString('base64url'), '%00']) {
      expectProblem(await get(`/api/v1/skills?cursor=${bad}`), 400, 'invalid_request');
    }
  });
});

describe('problem+json everywhere under /api/v1', () => {
  it('answers unknown routes with 404 and methods a path does not serve with 405 and Allow', async () => {
    expectProblem(await get('/api/v1/nothing-here'), 404, 'route_not_found');
    const del = await s.app.inject({ method: 'DELETE', url: '/api/v1/pricing' });
    expectProblem(del, 405, 'method_not_allowed');
    expect(del.headers.allow).toBe('GET, HEAD');
  });

  it('answers a body that is not JSON with 400 malformed_body', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { 'content-type': 'application/json' },
      payload: '{"type": ',
    });
    expectProblem(res, 400, 'malformed_body');
  });

  it('answers an empty JSON body with 400', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expectProblem(res, 400, 'malformed_body');
  });

  it('answers a non-JSON media type with 415', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/jobs',
      headers: { 'content-type': 'text/plain' },
      payload: 'type=skills.reindex',
    });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers an oversize body with 413', async () => {
    const small = await startTestServer({ COLONY_BODY_LIMIT_BYTES: '1024' });
    try {
      const res = await small.app.inject({
        method: 'POST',
        url: '/api/v1/jobs',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ type: 'skills.reindex', input: { pad: 'x'.repeat(4096) } }),
      });
      expectProblem(res, 413, 'payload_too_large');
    } finally {
      await small.close();
    }
  });

  it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
    const kept = await s.app.inject({ url: '/api/v1', headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await s.app.inject({ url: '/api/v1/nope', headers: { 'x-request-id': 'bad id\u0007' } });
    expect(replaced.headers['x-request-id']).toMatch(/^req_[0-9a-f]{12}[0-9a-z]{6,}$/);
    expect(replaced.json().requestId).toBe(replaced.headers['x-request-id']);
  });
});
