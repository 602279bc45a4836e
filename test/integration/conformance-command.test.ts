// The conformance command's flows against a listening server: all pass, and a mismatched schema fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProfileServer, startAgentProfileServer } from '../conformance/agent-profile-server.ts';
import { ConformanceRun } from '../conformance/flows.ts';
import { defaultConformanceDir, loadConformance } from '../conformance/schema-validators.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const schemas = loadConformance(defaultConformanceDir());
let s: TestServer;
let agents: AgentProfileServer;
let url: string;
beforeAll(async () => {
  agents = await startAgentProfileServer();
  s = await startTestServer({
    COLONY_CHECKOUT_RATE_LIMIT: '100000',
    COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
  });
  url = await s.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await s.close();
  await agents.close();
});

describe('conformance flows', () => {
  it('pass for every ACP and UCP version over real HTTP', async () => {
    const results = await new ConformanceRun(url, schemas).all(agents);
    expect(results.length).toBeGreaterThan(80);
    expect(results.filter((r) => r.problems.length > 0)).toEqual([]);
  });

  it('report failures when a response does not match the schema it is checked against', async () => {
    // Checking 2026-04-17 answers against the 2025-09-29 schema must fail (continue_url, statuses…).
    const swapped = { ...schemas, acp: { ...schemas.acp, '2026-04-17': schemas.acp['2025-09-29'] } };
    const run = new ConformanceRun(url, swapped);
    await run.acp('2026-04-17');
    expect(run.results.filter((r) => r.problems.length > 0).length).toBeGreaterThan(3);
  });
});
