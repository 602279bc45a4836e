// Browsers and origins: CORS for any page on public documents, OAuth endpoints and /api/v1; only
// allow-listed pages on /mcp and checkout; /mcp refuses other origins with 403 (DNS rebinding); cookie
// pages stay closed; never Access-Control-Allow-Credentials. Through the real server, on both databases.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planLine } from '../support/checkout.ts';
import { connectMcp } from '../support/mcp-client.ts';
import {
  type ListeningServer,
  startListeningServer,
  startTestServerOn,
  TEST_BASE_URL,
  type TestServer,
} from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const RANDOM_ORIGIN = `https://${randomBytes(5).toString('hex')}.example`;
const APP_ORIGIN = 'https://app.example';

const anyOriginReads = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/openid-configuration',
  '/oauth/jwks',
  '/api/v1',
  '/api/v1/pricing',
  '/openapi.json',
  '/.well-known/agent-card.json',
  '/.well-known/agent-skills/index.json',
  '/llms.txt',
  '/.well-known/acp.json',
];
const cookiePages = ['/signin', '/signup', '/account', '/oauth/authorize', '/checkout/cs_missing'];

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
};

type Inject = TestServer['app']['inject'];

function preflight(inject: Inject, url: string, origin: string, method = 'POST') {
  return inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

function postJson(inject: Inject, url: string, body: unknown, headers: Record<string, string> = {}) {
  return inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    payload: JSON.stringify(body),
  });
}

/** CORS headers for `origin` (`*` for any page), and never an invitation to send credentials. */
function expectCors(res: LightMyRequestResponse, origin: string | undefined) {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

describe.each(storageTargets)('browsers and origins on $name', (target) => {
  let s: ListeningServer;
  let inject: Inject;
  beforeAll(async () => {
    s = await startListeningServer(target);
    inject = s.app.inject.bind(s.app);
  });
  afterAll(() => s.close());

  it.each(anyOriginReads)('lets any page read %s, preflight first', async (url) => {
    const pre = await preflight(inject, url, RANDOM_ORIGIN, 'GET');
    expect(pre.statusCode).toBe(204);
    expectCors(pre, '*');
    expect(pre.headers['access-control-allow-methods']).toContain('GET');
    expect(String(pre.headers['access-control-allow-headers']).split(', ')).toEqual(
      expect.arrayContaining(['Authorization', 'Content-Type']),
    );
    const res = await inject({ url, headers: { origin: RANDOM_ORIGIN } });
    expect(res.statusCode).toBe(200);
    expectCors(res, '*');
    expect(res.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  it('lets a page register an OAuth client and call the token and revocation endpoints', async () => {
    for (const url of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const pre = await preflight(inject, url, RANDOM_ORIGIN);
      expect(pre.statusCode, url).toBe(204);
      expectCors(pre, '*');
    }
    const registered = await postJson(
      inject,
      '/oauth/register',
      { redirect_uris: [`${RANDOM_ORIGIN}/cb`], token_endpoint_auth_method: 'none', client_name: 'Web app' },
      { origin: RANDOM_ORIGIN },
    );
    expect(registered.statusCode, registered.body).toBe(201);
    expectCors(registered, '*');
    const clientId = String(registered.json().client_id);
    const form = (fields: Record<string, string>) => ({
      method: 'POST' as const,
      headers: { origin: RANDOM_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: clientId, ...fields }).toString(),
    });
    const token = await inject({
      url: '/oauth/token',
      ...form({ grant_type: 'authorization_code', code: 'x' }),
    });
    expect(token.statusCode).toBe(400);
    expect(token.json().error).toBe('invalid_grant');
    expectCors(token, '*');
    const revoke = await inject({ url: '/oauth/revoke', ...form({ token: 'not-a-token' }) });
    expect(revoke.statusCode).toBe(200);
    expectCors(revoke, '*');
  });

  it.each(cookiePages)('keeps the cookie page %s closed to other origins', async (url) => {
    const pre = await preflight(inject, url, RANDOM_ORIGIN, 'GET');
    expect(pre.statusCode).not.toBe(204);
    expectCors(pre, undefined);
    expectCors(await inject({ url, headers: { origin: RANDOM_ORIGIN } }), undefined);
  });

  it('answers OPTIONS that is no preflight with Allow', async () => {
    const res = await inject({ method: 'OPTIONS', url: '/api/v1/pricing' });
    expect(res.statusCode).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('opens /mcp to the service’s own origin and to requests without an Origin', async () => {
    const pre = await preflight(inject, '/mcp', s.baseUrl);
    expect(pre.statusCode).toBe(204);
    expectCors(pre, s.baseUrl);
    expect(String(pre.headers['access-control-allow-headers']).split(', ')).toEqual(
      expect.arrayContaining(['Mcp-Session-Id', 'Mcp-Protocol-Version', 'Last-Event-ID']),
    );
    const own = await postJson(inject, '/mcp', initialize, { origin: s.baseUrl });
    expect(own.statusCode, own.body).toBe(200);
    expectCors(own, s.baseUrl);
    expect(own.headers.vary).toContain('Origin');
    const none = await postJson(inject, '/mcp', initialize);
    expect(none.statusCode).toBe(200);
    expectCors(none, undefined);
  });

  it.each([
    ['another site', () => 'https://evil.test'],
    ['a lookalike host', (own: string) => `${own}.evil.test`],
    ['another scheme', (own: string) => own.replace(/^http:/, 'https:')],
    ['another port', (own: string) => own.replace(/:\d+$/, ':1')],
    ['an opaque origin', () => 'null'],
  ])('refuses /mcp from %s with 403, preflight included', async (_name, originFor) => {
    const origin = originFor(s.baseUrl);
    expect(origin).not.toBe(s.baseUrl);
    const answers = [
      await preflight(inject, '/mcp', origin),
      await postJson(inject, '/mcp', initialize, { origin }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().code).toBe('origin_not_allowed');
      expectCors(res, undefined);
    }
  });

  it('refuses a foreign origin on /mcp before it looks at the token or the body', async () => {
    const origin = 'https://evil.test';
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'cortex_recall' } };
    const withToken = await postJson(inject, '/mcp', call, { origin, authorization: 'Bearer forged' });
    expect(withToken.statusCode).toBe(403);
    expect(withToken.headers['www-authenticate']).toBeUndefined();
    const malformed = await inject({
      method: 'POST',
      url: '/mcp',
      headers: { origin, 'content-type': 'application/json' },
      payload: '{"jsonrpc":',
    });
    expect(malformed.statusCode).toBe(403);
  });

  it('leaves the MCP SDK client (no Origin) unaffected by default', async () => {
    const client = await connectMcp(s.baseUrl);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_pricing');
    await client.close();
  });

  it('lets checkout be called from the service’s own origin only, by default', async () => {
    const pre = await preflight(inject, '/checkout_sessions', s.baseUrl);
    expect(pre.statusCode).toBe(204);
    expectCors(pre, s.baseUrl);
    // The OPTIONS route still answers, but without CORS headers the browser refuses the call.
    const foreign = await preflight(inject, '/checkout_sessions', RANDOM_ORIGIN);
    expectCors(foreign, undefined);
  });
});

describe.each(storageTargets)('a configured allow-list on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(target, { COLONY_ALLOWED_ORIGINS: APP_ORIGIN, COLONY_API_RATE_LIMIT: '3' });
  });
  afterAll(() => s.close());

  it('opens /mcp to the listed origin and the own one, and refuses the rest', async () => {
    const inject = s.app.inject.bind(s.app);
    for (const origin of [APP_ORIGIN, TEST_BASE_URL]) {
      const res = await postJson(inject, '/mcp', initialize, { origin });
      expect(res.statusCode, origin).toBe(200);
      expectCors(res, origin);
    }
    expect((await postJson(inject, '/mcp', initialize, { origin: RANDOM_ORIGIN })).statusCode).toBe(403);
  });

  it('answers checkout preflights for the listed origin only, and withholds CORS from others', async () => {
    const inject = s.app.inject.bind(s.app);
    for (const url of ['/checkout_sessions', '/ucp/v1/checkout-sessions']) {
      const pre = await preflight(inject, url, APP_ORIGIN);
      expect(pre.statusCode, url).toBe(204);
      expectCors(pre, APP_ORIGIN);
      expect(pre.headers.vary).toContain('Origin');
      expect(String(pre.headers['access-control-allow-headers']).split(', ')).toEqual(
        expect.arrayContaining(['Idempotency-Key', 'API-Version', 'Request-Id', 'Signature', 'UCP-Agent']),
      );
      expectCors(await preflight(inject, url, RANDOM_ORIGIN), undefined);
    }
    const body = { line_items: [planLine()] };
    const listed = await postJson(inject, '/checkout_sessions', body, { origin: APP_ORIGIN });
    expect(listed.statusCode, listed.body).toBe(201);
    expectCors(listed, APP_ORIGIN);
    expect(listed.headers['access-control-expose-headers']).toContain('Idempotency-Replayed');
    const other = await postJson(inject, '/checkout_sessions', body, { origin: RANDOM_ORIGIN });
    expect(other.statusCode).toBe(201);
    expectCors(other, undefined);
  });

  it('charges no preflight to the request budget', async () => {
    for (let i = 0; i < 5; i++) {
      const pre = await preflight(s.app.inject.bind(s.app), '/api/v1/pricing', RANDOM_ORIGIN, 'GET');
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    const res = await s.app.inject({ url: '/api/v1/pricing', headers: { origin: RANDOM_ORIGIN } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('opens /mcp to every page when the list is *', async () => {
    const open = await startTestServerOn(target, { COLONY_ALLOWED_ORIGINS: '*' });
    try {
      const res = await postJson(open.app.inject.bind(open.app), '/mcp', initialize, {
        origin: RANDOM_ORIGIN,
      });
      expect(res.statusCode).toBe(200);
      expectCors(res, '*');
    } finally {
      await open.close();
    }
  });
});
