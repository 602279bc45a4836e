// The test processor's cancel at period end takes effect on its date without anyone opening the plan
// page (issue 16): the poller leader's sweep writes `canceled`, entitlements then refuse growth, the
// agent platform gets one order_update, a cancel taken back is left alone, and a replica that does not
// lead sweeps nothing. SQLite and PostgreSQL; time is the server's injectable clock, the sweep's
// interval a fake timer.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import { ORDER_WEBHOOK_JOB } from '../../api/commerce/order-webhooks/order-events.ts';
import { PollerGate } from '../../api/shared/poller-gate.ts';
import { InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { textOf } from '../support/http-browser.ts';
import { kubeconfigPath } from '../support/kube.ts';
import { accountKey, buyPlanAs } from '../support/plans.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const BOOTSTRAP = 'plan-end-sweep-bootstrap-token-0123';
const SWEEP_MS = 60_000;

describe.each(storageTargets)('plans ending at the test processor on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  let platformKey: string;
  const gate = new PollerGate(false);
  const clock = { now: Date.now() };

  beforeAll(async () => {
    // Only the interval is faked: the sweep's passes come when the test says, the rest runs as usual.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    s = await startTestServerOn(
      t,
      {
        KUBECONFIG: kubeconfigPath(),
        COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
        COLONY_CHECKOUT_RATE_LIMIT: '10000',
        COLONY_PLAN_END_SWEEP_SECONDS: String(SWEEP_MS / 1000),
      },
      { runJobs: false, now: () => clock.now, pollerGate: gate },
    );
    storage = s.app.colony.storage;
    const platform = await s.app.inject({
      method: 'POST',
      url: '/api/v1/agent-platforms',
      headers: { authorization: `Bearer ${BOOTSTRAP}` },
      payload: {
        ...{ id: 'shopper', name: 'Shopper', webhookUrl: 'https://agent.example.com/hooks' },
        webhookSecret: 'whsec-plan-end-sweep-0123456789abcdef',
      },
    });
    expect(platform.statusCode, platform.body).toBe(201);
    platformKey = platform.json().apiKey;
  });
  afterAll(async () => {
    await s?.close();
    vi.useRealTimers();
  });

  /** An owner whose agent platform bought Starter (trialing), with the plan's cancel confirmed. */
  async function cancelled(): Promise<{ browser: InjectBrowser; accountId: string; session: string }> {
    const owner = await signedUpOwner(s.app, storage.identity.accounts);
    const agent = { authorization: `Bearer ${platformKey}` };
    const session = await buyPlanAs(s.app, owner.browser, agent, 'plan_starter_monthly');
    const sub = await storage.subscriptions.ofAccount(owner.accountId);
    await owner.browser.get('/account/plan/cancel');
    const done = await owner.browser.submit('/account/plan/cancel', { subscription: String(sub?.id) });
    expect(done.statusCode).toBe(303);
    return { ...owner, session };
  }

  /** The owner signed in afresh (the clock moved past their session's life). */
  async function signedIn(accountId: string): Promise<InjectBrowser> {
    const browser = new InjectBrowser(s.app);
    await browser.get('/signin');
    const email = String((await storage.identity.accounts.get(accountId))?.email);
    const res = await browser.submit('/signin', { email, password: 'correct horse battery' });
    expect(res.statusCode).toBe(303);
    return browser;
  }

  const statusOf = async (accountId: string) => (await storage.subscriptions.ofAccount(accountId))?.status;
  const trialEndOf = async (accountId: string) =>
    Number((await storage.subscriptions.ofAccount(accountId))?.trialEnd);
  const entitled = async (accountId: string) =>
    (await s.app.colony.entitlements.ofAccount(accountId)).entitled;
  const sweepTurn = () => vi.advanceTimersByTimeAsync(SWEEP_MS);
  // The poller skips a tick that comes while its previous pass still runs (never two passes at once),
  // so a turn taken right after another may do nothing: turn again until a pass has ended the plan.
  const endedBySweep = (accountId: string) =>
    eventually(async () => {
      if ((await statusOf(accountId)) === 'canceled') return true;
      await sweepTurn();
      return false;
    });
  /** The order events queued for a checkout's order, as [type, status]. */
  const orderEvents = async (session: string) =>
    (await storage.jobs.ofType(ORDER_WEBHOOK_JOB))
      .map((j) => JSON.parse((j.input as { body: string }).body))
      .filter((b) => b.data.checkout_session_id === session)
      .map((b) => [b.type, b.data.status]);

  it('sweeps nothing on a replica that does not lead, and sweeps once it does', async () => {
    const { accountId } = await cancelled();
    clock.now = (await trialEndOf(accountId)) + 1;
    for (let i = 0; i < 5; i++) await sweepTurn();
    expect(await statusOf(accountId)).toBe('trialing');
    expect(await entitled(accountId)).toBe(true);

    await gate.set(true);
    await sweepTurn();
    await endedBySweep(accountId);
    expect(await entitled(accountId)).toBe(false);
  });

  it('ends a due cancel without a page view: entitlements refuse growth, the platform hears it once', async () => {
    const { browser, accountId, session } = await cancelled();
    const key = await accountKey(browser, ['offices:read', 'offices:write']);
    await sweepTurn();
    // Not due yet: the plan runs, and so do its entitlements.
    expect(await statusOf(accountId)).toBe('trialing');
    expect(await entitled(accountId)).toBe(true);

    clock.now = (await trialEndOf(accountId)) + 1;
    await sweepTurn();
    await endedBySweep(accountId);
    expect(await orderEvents(session)).toEqual([
      ['order_create', 'confirmed'],
      ['order_update', 'canceled'],
    ]);
    const office = `ended-${randomBytes(3).toString('hex')}`;
    const refused = await s.app.inject({
      method: 'PUT',
      url: `/api/v1/offices/${office}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json()).toMatchObject({
      code: 'plan_limit_reached',
      plan: 'starter',
      planStatus: 'canceled',
      limit: 'offices',
    });
    expect(await storage.officeBilling.accountOf(office)).toBeUndefined();

    // The plan page and later passes find it ended: nothing is sent again.
    const page = await (await signedIn(accountId)).get('/account/plan');
    expect(textOf(page.body, 'portal-status')).toBe('canceled');
    await sweepTurn();
    expect(await orderEvents(session)).toHaveLength(2);
  });

  it('leaves a cancel that was taken back, in the same pass that ends another', async () => {
    const kept = await cancelled();
    const sub = await storage.subscriptions.ofAccount(kept.accountId);
    const resumed = await kept.browser.submit('/account/plan/resume', { subscription: String(sub?.id) });
    expect(resumed.statusCode).toBe(303);
    clock.now += 1000;
    const ending = await cancelled();
    // Both trials end; the kept plan was bought first, so the pass reaches it before the other.
    clock.now = Math.max(await trialEndOf(kept.accountId), await trialEndOf(ending.accountId)) + 1;
    await sweepTurn();
    await endedBySweep(ending.accountId);
    expect(await statusOf(kept.accountId)).toBe('trialing');
    expect(await entitled(kept.accountId)).toBe(true);
    expect(await orderEvents(kept.session)).toEqual([['order_create', 'confirmed']]);
  });

  it('sends the one order_update from the plan page when it sees the end first; the sweep adds none', async () => {
    const { accountId, session } = await cancelled();
    clock.now = (await trialEndOf(accountId)) + 1;
    const page = await (await signedIn(accountId)).get('/account/plan');
    expect(textOf(page.body, 'portal-status')).toBe('canceled');
    expect(await statusOf(accountId)).toBe('canceled');
    await sweepTurn();
    expect(await orderEvents(session)).toEqual([
      ['order_create', 'confirmed'],
      ['order_update', 'canceled'],
    ]);
  });
});
