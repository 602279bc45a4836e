// COLONY_ENVIRONMENT=sandbox on the checkout surfaces: every session says nothing is charged and data is
// disposable (bodies still valid for every version), and the billing page runs the processor in test mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACP_VERSIONS } from '../../api/acp/versions.ts';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { defaultConformanceDir, loadConformance } from '../conformance/schema-validators.ts';
import { acp, type ClockedServer, planLine, startClockedServer } from '../support/checkout.ts';

const schemas = loadConformance(defaultConformanceDir());
const SANDBOX_TEXT = "This is Colony's sandbox";

let sandbox: ClockedServer;
let production: ClockedServer;
let agents: AgentProfileServer;
beforeAll(async () => {
  agents = await startAgentProfileServer();
  const env = { COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true' };
  sandbox = await startClockedServer({ ...env, COLONY_ENVIRONMENT: 'sandbox' });
  production = await startClockedServer(env);
});
afterAll(async () => {
  await sandbox.close();
  await production.close();
  await agents.close();
});

describe('checkout in a sandbox', () => {
  it.each(ACP_VERSIONS)('says so in every ACP %s session, valid for the snapshot', async (version) => {
    const created = await acp(
      sandbox.app,
      'POST',
      '/checkout_sessions',
      { line_items: [planLine()] },
      { 'api-version': version },
    );
    expect(created.statusCode).toBe(201);
    expect(schemas.acp[version].session(created.json())).toEqual([]);
    expect(JSON.stringify(created.json().messages)).toContain(SANDBOX_TEXT);
    const id = created.json().id;
    const canceled = await acp(sandbox.app, 'POST', `/checkout_sessions/${id}/cancel`, undefined, {
      'api-version': version,
    });
    expect(schemas.acp[version].session(canceled.json())).toEqual([]);
    expect(JSON.stringify(canceled.json().messages)).toContain(SANDBOX_TEXT);
  });

  it('says so in UCP sessions, and production sessions say nothing of it', async () => {
    const ucp = await acp(
      sandbox.app,
      'POST',
      '/ucp/v1/checkout-sessions',
      { line_items: [planLine()] },
      { 'ucp-agent': ucpAgent(agents) },
    );
    expect(ucp.statusCode).toBe(201);
    expect(schemas.ucp['2026-04-08'].checkout(ucp.json())).toEqual([]);
    expect(JSON.stringify(ucp.json().messages)).toContain(SANDBOX_TEXT);
    const prod = await acp(production.app, 'POST', '/checkout_sessions', { line_items: [planLine()] });
    expect(JSON.stringify(prod.json())).not.toContain('sandbox');
  });

  it('reports the sandbox on /api/v1 and runs the payment processor in test mode', async () => {
    expect((await sandbox.app.inject({ url: '/api/v1' })).json().environment).toBe('sandbox');
    expect(sandbox.app.colony.commerce.processor.testMode).toBe(true);
    const created = (
      await acp(sandbox.app, 'POST', '/checkout_sessions', { line_items: [planLine()] })
    ).json();
    const page = await sandbox.app.inject({ url: `/checkout/${created.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="sandbox"');
  });
});
