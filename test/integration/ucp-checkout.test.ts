// UCP /ucp/v1/checkout-sessions and /.well-known/ucp: negotiation from a real agent profile over HTTP,
// bodies validated against the official UCP schemas of the negotiated version, and the refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHash } from '../../api/shared/canonical-json.ts';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import {
  defaultConformanceDir,
  loadConformance,
  UCP_VERSIONS,
  type UcpVersion,
} from '../conformance/schema-validators.ts';
import { acp, type ClockedServer, HOUR, planLine, startClockedServer } from '../support/checkout.ts';

const schemas = loadConformance(defaultConformanceDir());

let s: ClockedServer;
let agents: AgentProfileServer;
beforeAll(async () => {
  agents = await startAgentProfileServer();
  s = await startClockedServer({ COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true' });
});
afterAll(async () => {
  await s.close();
  await agents.close();
});

const ucp = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => acp(s.app, method, `/ucp/v1${url}`, body, { 'ucp-agent': ucpAgent(agents), ...headers });

function expectValidCheckout(version: UcpVersion, body: unknown) {
  expect(schemas.ucp[version].checkout(body), JSON.stringify(body)).toEqual([]);
}
function expectValidError(body: unknown) {
  expect(schemas.ucp['2026-04-08'].errorResponse?.(body), JSON.stringify(body)).toEqual([]);
}

describe('/.well-known/ucp', () => {
  it.each(UCP_VERSIONS)(
    'serves a business profile for %s valid against its schema, cacheable',
    async (version) => {
      const url = version === '2026-04-08' ? '/.well-known/ucp' : `/.well-known/ucp/${version}`;
      const res = await s.app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      const profile = res.json();
      expect(schemas.ucp[version].businessProfile(profile)).toEqual([]);
      expect(profile.ucp.version).toBe(version);
      expect(profile.ucp.services['dev.ucp.shopping'][0]).toMatchObject({
        transport: 'rest',
        endpoint: 'http://colony.test/ucp/v1',
      });
      expect(Object.keys(profile.ucp.capabilities)).toEqual([
        'dev.ucp.shopping.checkout',
        'dev.ucp.common.identity_linking',
      ]);
      expect(profile.ucp.capabilities['dev.ucp.common.identity_linking'][0].config.authorization_server).toBe(
        'http://colony.test/.well-known/oauth-authorization-server',
      );
      expect(Object.keys(profile.ucp.payment_handlers)).toEqual(['ai.colony.hosted_billing']);
      expect(profile.signing_keys).toEqual([]);
    },
  );

  it("links identity to Colony's own OAuth 2.1 authorization server", async () => {
    const profile = (await s.app.inject({ url: '/.well-known/ucp' })).json();
    const linking = profile.ucp.capabilities['dev.ucp.common.identity_linking'][0].config;
    const metadata = await s.app.inject({ url: new URL(linking.authorization_server).pathname });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json().issuer).toBe('http://colony.test');
  });

  it('links the older version from the current profile', async () => {
    const profile = (await s.app.inject({ url: '/.well-known/ucp' })).json();
    expect(profile.ucp.supported_versions).toEqual({
      '2026-01-23': 'http://colony.test/.well-known/ucp/2026-01-23',
    });
  });
});

describe.each([
  ['2026-04-08', '/agent/2026-04-08'],
  ['2026-01-23', '/agent/2026-01-23'],
] as const)('UCP checkout negotiated at %s', (version, profile) => {
  const headers = () => ({ 'ucp-agent': ucpAgent(agents, profile) });

  it('creates, reads, replaces, completes and cancels with schema-valid bodies', async () => {
    const created = await ucp(
      'POST',
      '/checkout-sessions',
      { line_items: [planLine('plan_pro_annual')] },
      headers(),
    );
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expectValidCheckout(version, body);
    expect(body.id).toMatch(/^ucs_[0-9a-f]{32}$/);
    expect(body.status).toBe('ready_for_complete');
    expect(body.ucp.version).toBe(version);
    expect(body.ucp.capabilities['dev.ucp.shopping.checkout']).toEqual([{ version }]);
    expect(body.ucp.payment_handlers['ai.colony.hosted_billing'][0].id).toBe('hosted_billing');
    expect(body.totals).toEqual([
      { type: 'subtotal', display_text: 'Subtotal', amount: 99000 },
      { type: 'total', display_text: 'Total per year after the trial', amount: 99000 },
    ]);
    expect(body.continue_url).toBe(`http://colony.test/checkout/${body.id}`);

    const got = await ucp('GET', `/checkout-sessions/${body.id}`, undefined, headers());
    expectValidCheckout(version, got.json());

    const replaced = await ucp(
      'PUT',
      `/checkout-sessions/${body.id}`,
      {
        line_items: [planLine('plan_team_monthly'), planLine('addon_backups')],
        buyer: { email: 'o@example.com' },
      },
      headers(),
    );
    expect(replaced.statusCode).toBe(200);
    expectValidCheckout(version, replaced.json());
    expect(replaced.json().buyer).toEqual({ email: 'o@example.com' });
    // Full replacement: a PUT without buyer clears it.
    const again = await ucp(
      'PUT',
      `/checkout-sessions/${body.id}`,
      { line_items: [planLine('plan_team_monthly')] },
      headers(),
    );
    expect(again.json().buyer).toBeUndefined();

    const completed = await ucp(
      'POST',
      `/checkout-sessions/${body.id}/complete`,
      { payment: { instruments: [] } },
      headers(),
    );
    expect(completed.statusCode).toBe(200);
    const done = completed.json();
    expectValidCheckout(version, done);
    expect(done.status).toBe('requires_escalation');
    expect(done.continue_url).toBe(`http://colony.test/checkout/${body.id}`);
    expect(done.messages).toContainEqual(
      expect.objectContaining({ type: 'error', severity: 'requires_buyer_input', code: 'payment_handoff' }),
    );

    const canceled = await ucp('POST', `/checkout-sessions/${body.id}/cancel`, undefined, headers());
    expectValidCheckout(version, canceled.json());
    expect(canceled.json().status).toBe('canceled');
    const late = await ucp('POST', `/checkout-sessions/${body.id}/complete`, {}, headers());
    expect(late.statusCode).toBe(409);
    expect(late.json().messages[0].code).toBe('checkout_not_modifiable');
    expect(late.json().ucp).toEqual({ version, status: 'error' });
  });
});

describe('UCP states', () => {
  it('answers complete on a cart that cannot be bought with the checkout, incomplete', async () => {
    const created = (
      await ucp('POST', '/checkout-sessions', { line_items: [planLine('addon_backups')] })
    ).json();
    expect(created.status).toBe('incomplete');
    const res = await ucp('POST', `/checkout-sessions/${created.id}/complete`, {});
    expect(res.statusCode).toBe(200);
    expectValidCheckout('2026-04-08', res.json());
    expect(res.json().status).toBe('incomplete');
    expect(res.json().messages[0]).toMatchObject({ type: 'error', code: 'missing', severity: 'recoverable' });
  });

  it('shows an expired session as canceled with an expired message', async () => {
    const created = (await ucp('POST', '/checkout-sessions', { line_items: [planLine()] })).json();
    s.clock.advance(6 * HOUR);
    const got = (await ucp('GET', `/checkout-sessions/${created.id}`)).json();
    expectValidCheckout('2026-04-08', got);
    expect(got.status).toBe('canceled');
    expect(got.messages).toContainEqual(expect.objectContaining({ code: 'expired' }));
  });

  it('keeps ACP and UCP sessions apart', async () => {
    const acpSession = (await acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] })).json();
    expect((await ucp('GET', `/checkout-sessions/${acpSession.id}`)).statusCode).toBe(404);
  });
});

describe('UCP refusals', () => {
  it.each([
    ['no UCP-Agent', undefined, 400, 'invalid_profile_url'],
    ['a UCP-Agent that is not a dictionary', 'profile=', 400, 'invalid_profile_url'],
    ['a profile given as a token', 'profile=https', 400, 'invalid_profile_url'],
    ['a relative profile URL', 'profile="/agent"', 400, 'invalid_profile_url'],
    ['an unsupported protocol version', '/agent/unsupported', 422, 'version_unsupported'],
    ['a profile that is not JSON', '/agent/not-json', 422, 'profile_malformed'],
    ['JSON that is no profile', '/agent/not-a-profile', 422, 'profile_malformed'],
    ['a profile answering 500', '/agent/broken', 424, 'profile_unreachable'],
    ['a profile that redirects', '/agent/redirect', 424, 'profile_unreachable'],
    ['a profile that does not exist', '/agent/missing', 424, 'profile_unreachable'],
  ])('refuses %s', async (_name, agent, status, code) => {
    const header =
      agent === undefined ? {} : { 'ucp-agent': agent.startsWith('/') ? ucpAgent(agents, agent) : agent };
    const res = await s.app.inject({
      method: 'POST',
      url: '/ucp/v1/checkout-sessions',
      headers: { 'content-type': 'application/json', ...header },
      payload: JSON.stringify({ line_items: [planLine()] }),
    });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().messages[0].code).toBe(code);
    expectValidError(res.json());
  });

  it('answers an empty capability intersection as a business outcome', async () => {
    const res = await ucp(
      'POST',
      '/checkout-sessions',
      { line_items: [planLine()] },
      { 'ucp-agent': ucpAgent(agents, '/agent/no-checkout') },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ucp: { status: 'error' },
      messages: [{ code: 'capabilities_incompatible' }],
    });
    expectValidError(res.json());
  });

  it.each([
    ['malformed JSON', '{"line_items":', 'invalid_json'],
    ['no line items', {}, 'invalid_request'],
    [
      'a zero quantity',
      { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: 0 }] },
      'invalid_request',
    ],
    ['an unknown item', { line_items: [{ item: { id: 'plan_platinum_monthly' } }] }, 'item_unavailable'],
  ])('refuses %s with 400', async (_name, body, code) => {
    const res = await ucp('POST', '/checkout-sessions', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().messages[0].code).toBe(code);
    expectValidError(res.json());
  });

  it('answers unknown sessions and routes, and idempotency conflicts, as UCP errors', async () => {
    expect((await ucp('GET', '/checkout-sessions/ucs_missing')).statusCode).toBe(404);
    const route = await ucp('DELETE', '/checkout-sessions/ucs_x');
    expect(route.statusCode).toBe(405);
    expect(route.headers.allow).toBe('GET, HEAD, PUT');
    expect(route.json().messages[0].code).toBe('method_not_allowed');
    expectValidError(route.json());
    const unknown = await ucp('GET', '/orders/ucs_x');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().messages[0].code).toBe('route_not_found');
    await ucp('POST', '/checkout-sessions', { line_items: [planLine()] }, { 'idempotency-key': 'u-1' });
    const replay = await ucp(
      'POST',
      '/checkout-sessions',
      { line_items: [planLine()] },
      { 'idempotency-key': 'u-1' },
    );
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const conflict = await ucp(
      'POST',
      '/checkout-sessions',
      { line_items: [planLine('plan_team_monthly')] },
      { 'idempotency-key': 'u-1' },
    );
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().messages[0].code).toBe('idempotency_conflict');
    expectValidError(conflict.json());
  });

  it('fetches an agent profile once and serves later requests from the cache', async () => {
    const before = agents.hits.get('/agent/2026-04-08') ?? 0;
    for (let i = 0; i < 3; i++) await ucp('GET', '/checkout-sessions/ucs_missing');
    expect((agents.hits.get('/agent/2026-04-08') ?? 0) - before).toBeLessThanOrEqual(1);
  });
});

describe('UCP bad input', () => {
  it.each([
    ['line_items of the wrong type', { line_items: 'plan_pro_monthly' }, '$.line_items'],
    [
      'a string quantity',
      { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: '1' }] },
      '$.line_items[0].quantity',
    ],
    ['an item without an id', { line_items: [{ item: {} }] }, '$.line_items[0].item.id'],
    ['a bad buyer email', { line_items: [planLine()], buyer: { email: 'nope' } }, '$.buyer.email'],
    ['a JSON array', [planLine()], undefined],
  ])('refuses %s with 400 and the field path', async (_name, body, path) => {
    const res = await ucp('POST', '/checkout-sessions', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().messages[0].code).toBe('invalid_request');
    if (path) expect(res.json().messages[0].path).toBe(path);
    expectValidError(res.json());
  });

  it('refuses bodies that are not JSON and bodies over the limit, creating nothing', async () => {
    const before = await s.app.colony.storage.checkoutSessions.count();
    const text = await s.app.inject({
      method: 'POST',
      url: '/ucp/v1/checkout-sessions',
      headers: { 'content-type': 'text/plain', 'ucp-agent': ucpAgent(agents) },
      payload: 'line_items',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().messages[0].code).toBe('unsupported_media_type');
    expectValidError(text.json());
    const huge = await ucp('POST', '/checkout-sessions', {
      line_items: [planLine()],
      pad: 'x'.repeat(1_100_000),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().messages[0].code).toBe('payload_too_large');
    expectValidError(huge.json());
    expect(await s.app.colony.storage.checkoutSessions.count()).toBe(before);
  });

  it('answers every operation on an unknown session with 404, and a PUT on a final one with 409', async () => {
    for (const [method, path] of [
      ['PUT', '/checkout-sessions/ucs_missing'],
      ['POST', '/checkout-sessions/ucs_missing/complete'],
      ['POST', '/checkout-sessions/ucs_missing/cancel'],
    ] as const) {
      const res = await ucp(method, path, method === 'PUT' ? { line_items: [planLine()] } : {});
      expect(res.statusCode).toBe(404);
      expect(res.json().messages[0].code).toBe('not_found');
      expectValidError(res.json());
    }
    const created = (await ucp('POST', '/checkout-sessions', { line_items: [planLine()] })).json();
    await ucp('POST', `/checkout-sessions/${created.id}/cancel`);
    const put = await ucp('PUT', `/checkout-sessions/${created.id}`, { line_items: [planLine()] });
    expect(put.statusCode).toBe(409);
    expect(put.json().messages[0].code).toBe('checkout_not_modifiable');
  });
});

describe('UCP headers', () => {
  it('echoes Request-Id on answers and on errors', async () => {
    const ok = await ucp(
      'POST',
      '/checkout-sessions',
      { line_items: [planLine()] },
      { 'request-id': 'ucp-req-1' },
    );
    expect(ok.headers['request-id']).toBe('ucp-req-1');
    const missing = await ucp('GET', '/checkout-sessions/ucs_missing', undefined, {
      'request-id': 'ucp-req-2',
    });
    expect(missing.headers['request-id']).toBe('ucp-req-2');
    const noAgent = await s.app.inject({
      url: '/ucp/v1/checkout-sessions/ucs_x',
      headers: { 'request-id': 'ucp-req-3' },
    });
    expect(noAgent.statusCode).toBe(400);
    expect(noAgent.headers['request-id']).toBe('ucp-req-3');
  });
});

describe('UCP idempotency', () => {
  it('replays byte for byte, answers 409 with Retry-After in flight, and makes one session for many parallel creates', async () => {
    const body = { line_items: [planLine('plan_team_monthly')] };
    const first = await ucp('POST', '/checkout-sessions', body, { 'idempotency-key': 'u-bytes' });
    s.clock.advance(1000);
    const second = await ucp('POST', '/checkout-sessions', body, { 'idempotency-key': 'u-bytes' });
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['idempotent-replayed']).toBe('true');

    await s.app.colony.storage.checkoutIdempotency.claim({
      scope: 'ucp:create:',
      key: 'u-flight',
      fingerprint: requestHash({ variant: { version: '2026-04-08', checkoutVersion: '2026-04-08' }, body }),
      now: s.clock.now,
      lockMs: 60_000,
      ttlMs: 24 * HOUR,
    });
    const flight = await ucp('POST', '/checkout-sessions', body, { 'idempotency-key': 'u-flight' });
    expect(flight.statusCode).toBe(409);
    expect(flight.json().messages[0].code).toBe('idempotency_in_flight');
    expect(Number(flight.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectValidError(flight.json());

    const before = await s.app.colony.storage.checkoutSessions.count();
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        ucp('POST', '/checkout-sessions', body, { 'idempotency-key': 'u-par' }),
      ),
    );
    expect(await s.app.colony.storage.checkoutSessions.count()).toBe(before + 1);
    const created = results.filter((r) => r.statusCode === 201);
    expect(new Set(created.map((r) => r.body)).size).toBe(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expect(r.statusCode).toBe(409);
  });
});

describe('UCP agent profiles outside local runs', () => {
  let strict: ClockedServer;
  beforeAll(async () => {
    strict = await startClockedServer();
  });
  afterAll(async () => {
    await strict.close();
  });

  it.each([
    ['plain http', 'profile="http://agent.example/profile"', 400, 'invalid_profile_url'],
    ['a loopback address', 'profile="https://127.0.0.1:9/profile"', 424, 'profile_unreachable'],
    ['a private address', 'profile="https://10.1.2.3/profile"', 424, 'profile_unreachable'],
    ['a name for loopback', 'profile="https://localhost:9/profile"', 424, 'profile_unreachable'],
  ])('refuses %s', async (_name, agent, status, code) => {
    const res = await strict.app.inject({
      url: '/ucp/v1/checkout-sessions/ucs_x',
      headers: { 'ucp-agent': agent },
    });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().messages[0].code).toBe(code);
  });
});
