// Every protected route (its OpenAPI security demands a bearer token) answers a caller without a valid
// token with the 401 challenge before it says anything about the body, params or query. The routes come
// from the server's own route table, so a route added later is covered. On SQLite and PostgreSQL.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiresBearer } from '../../api/shared/authenticate-first.ts';
import { freePort, startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

/** Each protected route of `app` as a request that breaks its params, query and body all at once. */
function protectedRequests(app: FastifyInstance) {
  const table = app.routeTable;
  if (!table) throw new Error('the server keeps no route table');
  return table
    .entries()
    .filter((r) => r.method !== 'HEAD' && requiresBearer(r.schema))
    .map((r) => ({
      route: `${r.method} ${r.url}`,
      method: r.method,
      // A value no parameter schema accepts: spaces, punctuation, longer than any id.
      url: `${r.url.replace(/:[A-Za-z0-9_]+/g, `bad%20value!${'z'.repeat(80)}`)}?limit=-1&cursor=%25&office=%20`,
    }));
}

const BODIES = [
  ['a body that fails validation', '{"unexpected": true, "name": 5, "data": [null]}'],
  ['a body that is not JSON', '{"broken": '],
] as const;

function expectChallenge(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer resource_metadata="/);
  expect(res.json()).toMatchObject({ code: 'unauthorized' });
}

async function expectEveryProtectedRouteChallenges(app: FastifyInstance, minimum: string[]) {
  const requests = protectedRequests(app);
  expect(requests.map((r) => r.route)).toEqual(expect.arrayContaining(minimum));
  const cases = requests.flatMap((r) =>
    BODIES.flatMap(([, payload]) =>
      [undefined, 'Bearer col_not_a_real_key'].map((authorization) => ({ ...r, payload, authorization })),
    ),
  );
  for (const c of cases) {
    const res = await app.inject({
      method: c.method as 'POST',
      url: c.url,
      headers: {
        'content-type': 'application/json',
        ...(c.authorization ? { authorization: c.authorization } : {}),
      },
      ...(c.method === 'GET' ? {} : { payload: c.payload }),
    });
    expect([c.route, c.authorization, res.statusCode]).toEqual([c.route, c.authorization, 401]);
    expectChallenge(res);
    if (c.authorization) expect(String(res.headers['www-authenticate'])).toContain('error="invalid_token"');
  }
}

describe.each(storageTargets)('authentication before validation on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(
      target,
      { COLONY_BOOTSTRAP_TOKEN: 'bootstrap-secret-token' },
      { runJobs: false },
    );
  });
  afterAll(() => s.close());

  it('answers every protected route of the main listener with 401 before reading params, query or body', async () => {
    await expectEveryProtectedRouteChallenges(s.app, [
      'GET /api/v1/me',
      'POST /api/v1/keys',
      'DELETE /api/v1/keys/:id',
      'POST /api/snapshots',
      'POST /api/v1/offices/:officeID/integrations/:integration_id/secret',
    ]);
  });

  it('still validates once the token is good', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: { authorization: 'Bearer bootstrap-secret-token', 'content-type': 'application/json' },
      payload: '{"unexpected": true}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_request');
  });

  it('refuses a bad token on /mcp before it reads the body', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: 'Bearer col_not_a_real_key', 'content-type': 'application/json' },
      payload: '{"jsonrpc": ',
    });
    expectChallenge(res);
  });
});

describe.each(storageTargets)(
  'authentication before validation on the manager listener on $name',
  (target) => {
    let s: TestServer;
    beforeAll(async () => {
      const port = String(await freePort());
      s = await startTestServerOn(target, { COLONY_MANAGER_PORT: port }, { runJobs: false });
    });
    afterAll(() => s.close());

    it('answers every protected office-manager route with 401 before validation', async () => {
      const manager = s.app.managerServer;
      if (!manager) throw new Error('no manager listener');
      await manager.ready();
      await expectEveryProtectedRouteChallenges(manager, [
        'POST /api/v1/offices/:officeID/integrations/:integration_id/secret',
      ]);
    });
  },
);
