// Concurrent UCP requests from one agent share one fetch of its profile on a cold cache; a failed
// fetch is shared by the requests that waited on it, but not remembered for later ones.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { acp, planLine } from '../support/checkout.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('UCP profile fetches on $name', (target) => {
  let s: TestServer;
  let agents: AgentProfileServer;
  beforeEach(async () => {
    agents = await startAgentProfileServer();
    s = await startTestServerOn(
      target,
      { COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true', COLONY_CHECKOUT_RATE_LIMIT: '10000' },
      { runJobs: false },
    );
  });
  afterEach(async () => {
    await s.close();
    await agents.close();
  });

  const create = (profile: string) =>
    acp(
      s.app,
      'POST',
      '/ucp/v1/checkout-sessions',
      { line_items: [planLine()] },
      { 'ucp-agent': ucpAgent(agents, profile) },
    );

  it('60 concurrent creates for one agent fetch its profile once', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => create('/agent/2026-04-08')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(60).fill(201));
    expect(agents.hits.get('/agent/2026-04-08')).toBe(1);
  });

  it('a failed fetch is shared by concurrent requests but fetched again afterwards', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => create('/agent/broken')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(424));
    expect(agents.hits.get('/agent/broken')).toBe(1);
    expect((await create('/agent/broken')).statusCode).toBe(424);
    expect(agents.hits.get('/agent/broken')).toBe(2);
  });
});
