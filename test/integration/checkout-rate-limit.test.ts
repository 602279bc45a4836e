// One checkout budget per client address for ACP and UCP together, shared by replicas through Redis or
// PostgreSQL, and answered in each protocol's own error shape.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { defaultConformanceDir, loadConformance } from '../conformance/schema-validators.ts';
import { acp, type ClockedServer, planLine, startClockedServer } from '../support/checkout.ts';
import { postgresUrl } from '../support/storage-targets.ts';

const schemas = loadConformance(defaultConformanceDir());

const servers: ClockedServer[] = [];
let agents: AgentProfileServer | undefined;
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await agents?.close();
  agents = undefined;
});

async function replicas(count: number, env: Record<string, string>): Promise<ClockedServer[]> {
  agents = await startAgentProfileServer();
  for (let i = 0; i < count; i++) {
    servers.push(
      await startClockedServer({
        COLONY_CHECKOUT_RATE_LIMIT: '5',
        COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
        ...env,
      }),
    );
  }
  return servers;
}

const acpCreate = (s: ClockedServer) =>
  acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] });
const ucpCreate = (s: ClockedServer, a: AgentProfileServer) =>
  acp(s.app, 'POST', '/ucp/v1/checkout-sessions', { line_items: [planLine()] }, { 'ucp-agent': ucpAgent(a) });

describe('checkout rate limit', () => {
  it('counts ACP and UCP requests against one budget and answers each in its own shape', async () => {
    const [s] = await replicas(1, {});
    if (!s || !agents) throw new Error('no server');
    for (let i = 0; i < 3; i++) expect((await acpCreate(s)).statusCode).toBe(201);
    for (let i = 0; i < 2; i++) expect((await ucpCreate(s, agents)).statusCode).toBe(201);
    const acpLimited = await acpCreate(s);
    expect(acpLimited.statusCode).toBe(429);
    expect(acpLimited.json()).toMatchObject({ type: 'invalid_request', code: 'rate_limited' });
    expect(Number(acpLimited.headers['retry-after'])).toBeGreaterThan(0);
    expect(schemas.acp['2026-04-17'].error(acpLimited.json())).toEqual([]);
    const ucpLimited = await ucpCreate(s, agents);
    expect(ucpLimited.statusCode).toBe(429);
    expect(ucpLimited.json()).toMatchObject({
      ucp: { status: 'error' },
      messages: [{ code: 'rate_limited' }],
    });
    expect(ucpLimited.headers['retry-after']).toBeDefined();
    expect(schemas.ucp['2026-04-08'].errorResponse?.(ucpLimited.json())).toEqual([]);
    // The public read API keeps its own budget.
    expect((await s.app.inject({ url: '/api/v1/pricing' })).statusCode).toBe(200);
  });

  it.each([
    ['postgres', () => ({ COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() })],
    ['redis', () => ({ COLONY_RATE_LIMIT_STORE: 'redis', REDIS_URL: process.env.TEST_REDIS_URL ?? '' })],
  ])('shares the budget between replicas through %s', async (_name, env) => {
    const [a, b] = await replicas(2, { ...env(), COLONY_BASE_URL: `http://replicas-${Date.now()}.test` });
    if (!a || !b || !agents) throw new Error('no servers');
    // Distinct client addresses per run keep earlier runs' counters out of the way.
    const address = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const from = (s: ClockedServer, ucpToo: boolean) =>
      ucpToo && agents
        ? s.app.inject({
            method: 'POST',
            url: '/ucp/v1/checkout-sessions',
            remoteAddress: address,
            headers: { 'content-type': 'application/json', 'ucp-agent': ucpAgent(agents) },
            payload: JSON.stringify({ line_items: [planLine()] }),
          })
        : s.app.inject({
            method: 'POST',
            url: '/checkout_sessions',
            remoteAddress: address,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify({ line_items: [planLine()] }),
          });
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await from(i % 2 === 0 ? a : b, i % 3 === 0)).statusCode);
    expect(codes).toEqual([201, 201, 201, 201, 201, 429]);
  });
});
