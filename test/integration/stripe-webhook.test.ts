// Stripe's webhook on SQLite and PostgreSQL: a real Checkout Session created on stripe-mock through the
// billing page, then signed events (built with the stripe package's own test header) that finish it with
// the owner gone, replays and races with the owner's return, refused signatures, and a missing setup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { InjectBrowser } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { startTestServer, startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import {
  type StripeCheckoutDesk,
  startStripeCheckoutDesk,
  subscriptionOfSession,
} from '../support/stripe-checkout-desk.ts';
import { useStripeDesk } from '../support/stripe-desk-fixture.ts';
import { deliver, eventBody, SECRET, signature, subscriptionEventBody } from '../support/stripe-events.ts';

const desk = useStripeDesk();
let agents: AgentProfileServer;
beforeAll(async () => {
  agents = await startAgentProfileServer();
});
afterAll(async () => {
  await agents.close();
});

const stripeEnv = () => ({
  ...desk.env(),
  STRIPE_WEBHOOK_SECRET: SECRET,
  COLONY_CHECKOUT_RATE_LIMIT: '10000',
  COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
});

let people = 0;

describe.each(storageTargets)('Stripe webhook on $name', (t) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(t, stripeEnv(), { runJobs: false });
  });
  afterAll(async () => {
    await s.close();
  });

  const sessionOf = (id: string) => s.app.colony.storage.checkoutSessions.get(id);

  /** An agent's checkout handed to a new owner who clicked pay and is now at Stripe Checkout. */
  async function atStripe(protocol: 'acp' | 'ucp' = 'acp') {
    const created =
      protocol === 'acp'
        ? await acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] })
        : await acp(
            s.app,
            'POST',
            '/ucp/v1/checkout-sessions',
            { line_items: [planLine()] },
            {
              'ucp-agent': ucpAgent(agents),
            },
          );
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const browser = new InjectBrowser(s.app);
    const email = `payer-${++people}-${Date.now()}@example.com`;
    expect((await browser.signUp({ name: 'Ada', email, password: 'analytical engine' })).statusCode).toBe(
      303,
    );
    expect((await browser.get(`/checkout/${id}`)).statusCode).toBe(200);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    expect(pay.statusCode, pay.body).toBe(303);
    expect(pay.headers.location).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const [handoff] = await s.app.colony.storage.billingHandoffs.ofSession(id);
    const account = await s.app.colony.storage.identity.accounts.byEmail(email);
    if (!handoff || !account) throw new Error('no hand-off to Stripe');
    const before = await sessionOf(id);
    return { id, reference: handoff.reference, accountId: account.id, browser, revision: before?.revision };
  }

  async function expectNothingWritten(p: { id: string; reference: string; revision?: number }) {
    const session = await sessionOf(p.id);
    expect(session?.status).not.toBe('completed');
    expect(session?.revision).toBe(p.revision);
    expect(await s.app.colony.storage.orders.bySession(p.id)).toBeUndefined();
    expect((await s.app.colony.storage.billingHandoffs.get(p.reference))?.status).toBe('open');
  }

  async function expectCompletedOnce(p: { id: string; accountId: string; revision?: number }) {
    const session = await sessionOf(p.id);
    expect(session?.status).toBe('completed');
    expect(session?.revision).toBe((p.revision ?? 0) + 1);
    const order = await s.app.colony.storage.orders.bySession(p.id);
    expect(order).toMatchObject({ accountId: p.accountId, kind: 'subscribe', plan: 'pro' });
    const sub = await s.app.colony.storage.subscriptions.ofAccount(p.accountId);
    expect(order?.subscriptionId).toBe(sub?.id);
    expect(sub).toMatchObject({
      accountId: p.accountId,
      checkoutSessionId: p.id,
      processor: 'stripe',
      status: 'trialing',
      plan: 'pro',
      testMode: true,
    });
    expect(sub?.processorRef).toMatch(/^sub_/);
    expect(session?.order).toMatchObject({
      orderId: order?.id,
      subscriptionId: sub?.id,
      accountId: p.accountId,
    });
    expect((await s.app.colony.storage.subscriptions.ofAccount(p.accountId))?.id).toBe(sub?.id);
    return sub;
  }

  it('finishes an ACP checkout the owner paid for and never came back from', async () => {
    const p = await atStripe('acp');
    desk.pay(p.reference);
    const asked = desk.retrieved.get(p.reference) ?? 0;
    const res = await deliver(s, eventBody('checkout.session.completed', p.reference));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, outcome: 'completed' });
    // Stripe itself was asked, not the event believed.
    expect(desk.retrieved.get(p.reference)).toBe(asked + 1);
    await expectCompletedOnce(p);
    expect((await s.app.colony.storage.billingHandoffs.get(p.reference))?.status).toBe('complete');
    const agentView = await acp(s.app, 'GET', `/checkout_sessions/${p.id}`);
    expect(agentView.json()).toMatchObject({ status: 'completed', order: { id: expect.any(String) } });
  });

  it('finishes a UCP checkout the same way', async () => {
    const p = await atStripe('ucp');
    expect(p.id).toMatch(/^ucs_/);
    desk.pay(p.reference);
    expect((await deliver(s, eventBody('checkout.session.completed', p.reference))).statusCode).toBe(200);
    await expectCompletedOnce(p);
    const agentView = await acp(s.app, 'GET', `/ucp/v1/checkout-sessions/${p.id}`, undefined, {
      'ucp-agent': ucpAgent(agents),
    });
    expect(agentView.json().status).toBe('completed');
  });

  /** A checkout finished through Stripe's webhook: the account's subscription. */
  async function subscribed() {
    const p = await atStripe();
    desk.pay(p.reference);
    expect((await deliver(s, eventBody('checkout.session.completed', p.reference))).statusCode).toBe(200);
    const sub = await expectCompletedOnce(p);
    if (!sub) throw new Error('no subscription');
    expect(sub.processorRef).toBe(subscriptionOfSession(p.reference));
    return sub;
  }
  const stored = async (accountId: string) => s.app.colony.storage.subscriptions.ofAccount(accountId);
  const at = (secondsAgo: number) => Math.floor(Date.now() / 1000) - secondsAgo;

  it('keeps the subscription in step with Stripe whatever order its events arrive in', async () => {
    const sub = await subscribed();
    // A renewal failed: Stripe says past due.
    desk.setSubscription(sub.processorRef, { status: 'past_due', trial_end: null });
    const failed = subscriptionEventBody(
      'customer.subscription.updated',
      sub.processorRef,
      'past_due',
      at(60),
    );
    const res = await deliver(s, failed);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, outcome: 'synced' });
    expect(await stored(sub.accountId)).toMatchObject({ id: sub.id, status: 'past_due', trialEnd: null });

    // Then canceled; the deletion arrives before an older update that still says active.
    desk.setSubscription(sub.processorRef, { status: 'canceled', trial_end: null });
    const deleted = subscriptionEventBody(
      'customer.subscription.deleted',
      sub.processorRef,
      'canceled',
      at(10),
    );
    const olderUpdate = subscriptionEventBody(
      'customer.subscription.updated',
      sub.processorRef,
      'active',
      at(30),
    );
    expect((await deliver(s, deleted)).statusCode).toBe(200);
    expect((await deliver(s, olderUpdate)).statusCode).toBe(200);
    // Redeliveries of both change nothing either: each reads Stripe, which says canceled.
    expect((await deliver(s, deleted)).statusCode).toBe(200);
    expect((await deliver(s, failed)).statusCode).toBe(200);
    expect(await stored(sub.accountId)).toMatchObject({ id: sub.id, status: 'canceled' });
    expect(desk.retrieved.get(sub.processorRef)).toBe(5);
  });

  it('ignores subscriptions no account holds, and asks for a redelivery when Stripe cannot be read', async () => {
    const before = desk.retrieved.get('sub_nobody') ?? 0;
    const stranger = subscriptionEventBody('customer.subscription.updated', 'sub_nobody', 'active', at(5));
    const ignored = await deliver(s, stranger);
    expect(ignored.statusCode).toBe(200);
    expect(ignored.json()).toEqual({ received: true, outcome: 'not_ours' });
    expect(desk.retrieved.get('sub_nobody') ?? 0).toBe(before);

    const sub = await subscribed();
    desk.breakSubscription(sub.processorRef);
    const update = subscriptionEventBody('customer.subscription.updated', sub.processorRef, 'active', at(5));
    const res = await deliver(s, update);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable' });
    expect(await stored(sub.accountId)).toMatchObject({ status: 'trialing' });
  });

  it('completes once when Stripe redelivers, and the async-payment event changes nothing', async () => {
    const p = await atStripe();
    desk.pay(p.reference);
    const payload = eventBody('checkout.session.completed', p.reference);
    const header = signature(payload);
    expect((await deliver(s, payload, header)).statusCode).toBe(200);
    const sub = await expectCompletedOnce(p);
    for (const again of [
      await deliver(s, payload, header),
      await deliver(s, payload),
      await deliver(s, eventBody('checkout.session.async_payment_succeeded', p.reference)),
    ]) {
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().outcome).toBe('completed');
    }
    expect((await expectCompletedOnce(p))?.id).toBe(sub?.id);
  });

  it('waits for a delayed payment to clear: 200 awaiting_payment, nothing recorded, then async_payment_succeeded finishes it', async () => {
    const p = await atStripe();
    desk.payLater(p.reference);
    const early = await deliver(s, eventBody('checkout.session.completed', p.reference));
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json()).toEqual({ received: true, outcome: 'awaiting_payment' });
    await expectNothingWritten(p);
    // The owner coming back is told the money is on its way, not invited to pay a second time.
    const back = await p.browser.get(`/checkout/${p.id}/return?reference=${p.reference}`);
    expect(back.body).toContain('Your payment is on its way');
    expect(back.body).not.toContain('Continue to payment to try again');
    await expectNothingWritten(p);
    desk.pay(p.reference);
    const cleared = await deliver(s, eventBody('checkout.session.async_payment_succeeded', p.reference));
    expect(cleared.json()).toEqual({ received: true, outcome: 'completed' });
    await expectCompletedOnce(p);
  });

  it('completes once when the webhook races the owner coming back', async () => {
    const p = await atStripe();
    desk.pay(p.reference);
    const payload = eventBody('checkout.session.completed', p.reference);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => deliver(s, payload)),
      ...Array.from({ length: 4 }, () => p.browser.get(`/checkout/${p.id}/return?reference=${p.reference}`)),
    ]);
    for (const [i, a] of answers.entries()) expect(a.statusCode, a.body).toBe(i < 4 ? 200 : 303);
    await expectCompletedOnce(p);
    // The owner's page shows the subscription the webhook (or their return) recorded.
    expect((await p.browser.get(`/checkout/${p.id}`)).statusCode).toBe(200);
  });

  it.each([
    ['a missing Stripe-Signature header', (body: string) => deliver(s, body, null), 'invalid_signature'],
    ['an empty Stripe-Signature header', (body: string) => deliver(s, body, ''), 'invalid_signature'],
    ['a header that is not a signature', (body: string) => deliver(s, body, 'nonsense'), 'invalid_signature'],
    [
      'a signature made with another secret',
      (body: string) => deliver(s, body, signature(body, { secret: 'whsec_another' })),
      'invalid_signature',
    ],
    [
      'a signature of another body',
      (body: string) => deliver(s, body, signature(body.replace('"livemode":false', '"livemode":true'))),
      'invalid_signature',
    ],
    [
      'a signature older than five minutes',
      (body: string) => deliver(s, body, signature(body, { timestamp: Math.floor(Date.now() / 1000) - 301 })),
      'invalid_signature',
    ],
    [
      'a signed body that is not JSON',
      (body: string) => deliver(s, body.slice(0, -1), signature(body.slice(0, -1))),
      'malformed_body',
    ],
    ['an unsigned body that is not JSON', (_body: string) => deliver(s, '{"id":', null), 'invalid_signature'],
  ])('refuses %s with 400 and writes nothing', async (_name, send, code) => {
    const p = await atStripe();
    // Stripe would confirm this payment: only the refusal stops it from completing.
    desk.pay(p.reference);
    const res = await send(eventBody('checkout.session.completed', p.reference));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code });
    expect(res.body).not.toContain(SECRET);
    await expectNothingWritten(p);
  });

  it('records nothing for a second account whose payment arrives after another finished the checkout', async () => {
    const first = await atStripe();
    // A second owner opened the same continue_url and clicked pay too, before the first finished.
    const browser = new InjectBrowser(s.app);
    const email = `late-${Date.now()}@example.com`;
    await browser.signUp({ name: 'Late', email, password: 'analytical engine' });
    await browser.get(`/checkout/${first.id}`);
    expect((await browser.submit(`/checkout/${first.id}/pay`, {})).statusCode).toBe(303);
    const late = await s.app.colony.storage.identity.accounts.byEmail(email);
    const lateHandoff = (await s.app.colony.storage.billingHandoffs.ofSession(first.id)).find(
      (h) => h.accountId === late?.id,
    );
    if (!late || !lateHandoff) throw new Error('the second owner was not handed to Stripe');
    const revision = (await sessionOf(first.id))?.revision;

    desk.pay(first.reference);
    desk.pay(lateHandoff.reference);
    // stripe-mock answers every session with the same canned subscription id: count from here on.
    const seen = desk.requests.length;
    expect((await deliver(s, eventBody('checkout.session.completed', first.reference))).statusCode).toBe(200);
    const res = await deliver(s, eventBody('checkout.session.completed', lateHandoff.reference));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, outcome: 'finished_by_another' });
    expect(await s.app.colony.storage.subscriptions.ofAccount(late.id)).toBeUndefined();
    await expectCompletedOnce({ ...first, revision });
    // The subscription Stripe opened for the late payer is canceled, once, however often Stripe redelivers.
    const canceled = (await s.app.colony.storage.billingHandoffs.get(lateHandoff.reference))?.data
      .canceled_subscription;
    expect(canceled).toMatch(/^sub_/);
    const cancels = () =>
      desk.requests.slice(seen).filter((r) => r === `DELETE /v1/subscriptions/${canceled}`).length;
    expect(cancels()).toBe(1);
    const again = await deliver(s, eventBody('checkout.session.completed', lateHandoff.reference));
    expect(again.json()).toEqual({ received: true, outcome: 'finished_by_another' });
    expect(cancels()).toBe(1);
  });

  it('answers 200 and does nothing for a Checkout Session Colony did not start', async () => {
    const res = await deliver(s, eventBody('checkout.session.completed', 'cs_test_not_ours'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(await s.app.colony.storage.billingHandoffs.get('cs_test_not_ours')).toBeUndefined();
  });

  it.each(['checkout.session.expired', 'customer.subscription.updated', 'invoice.paid'])(
    'answers 200 and does nothing for %s',
    async (type) => {
      const p = await atStripe();
      desk.pay(p.reference);
      const res = await deliver(s, eventBody(type, p.reference));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true });
      await expectNothingWritten(p);
    },
  );

  it('does not believe an event Stripe contradicts: 409, nothing written, Stripe will redeliver', async () => {
    const p = await atStripe();
    // Not paid: stripe-mock reports the Checkout Session open, whatever the signed event says.
    const res = await deliver(s, eventBody('checkout.session.completed', p.reference));
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ code: 'conflict' });
    await expectNothingWritten(p);
  });

  it('refuses a body over the limit with 413 and writes nothing', async () => {
    const p = await atStripe();
    desk.pay(p.reference);
    const body = eventBody('checkout.session.completed', p.reference).replace(
      '"livemode":false',
      `"padding":"${'x'.repeat(600 * 1024)}","livemode":false`,
    );
    const res = await deliver(s, body);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large' });
    await expectNothingWritten(p);
  });
});

describe('Stripe webhook when it is not set up', () => {
  const payload = eventBody('checkout.session.completed', 'cs_test_x');

  it.each([
    ['Stripe without a webhook secret', { ...stripeEnvWithout('STRIPE_WEBHOOK_SECRET') }],
    ['the test processor', { STRIPE_WEBHOOK_SECRET: SECRET }],
  ])('answers 503 not_configured with %s', async (_name, env) => {
    const s = await startTestServer(env, { runJobs: false });
    try {
      const res = await deliver(s, payload);
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'not_configured', status: 503 });
      expect(res.json().detail).toContain('STRIPE_WEBHOOK_SECRET');
    } finally {
      await s.close();
    }
  });
});

function stripeEnvWithout(name: string): Record<string, string> {
  const env: Record<string, string> = {
    COLONY_PAYMENT_PROCESSOR: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_123',
    COLONY_STRIPE_API_URL: 'http://127.0.0.1:9',
    STRIPE_WEBHOOK_SECRET: SECRET,
  };
  delete env[name];
  return env;
}

describe('Stripe webhook when Stripe cannot be asked', () => {
  let s: TestServer;
  let ownDesk: StripeCheckoutDesk;
  const lines: string[] = [];
  beforeAll(async () => {
    ownDesk = await startStripeCheckoutDesk(desk.mockUrl);
    s = await startTestServer(
      { ...stripeEnv(), COLONY_STRIPE_API_URL: ownDesk.url },
      { runJobs: false, logger: { level: 'info', stream: { write: (l: string) => lines.push(l) } } },
    );
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers 503 so Stripe redelivers, writes nothing, and logs no secret', async () => {
    const id = (await acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] })).json().id;
    const browser = new InjectBrowser(s.app);
    await browser.signUp({ name: 'Ada', email: 'ada@example.com', password: 'analytical engine' });
    await browser.get(`/checkout/${id}`);
    expect((await browser.submit(`/checkout/${id}/pay`, {})).statusCode).toBe(303);
    const [handoff] = await s.app.colony.storage.billingHandoffs.ofSession(id);
    const reference = handoff?.reference ?? '';
    ownDesk.pay(reference);
    await ownDesk.close();

    const payload = eventBody('checkout.session.completed', reference, 'evt_outage');
    const header = signature(payload);
    const res = await deliver(s, payload, header);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable' });
    expect((await s.app.colony.storage.checkoutSessions.get(id))?.status).not.toBe('completed');
    expect(await s.app.colony.storage.orders.bySession(id)).toBeUndefined();
    expect((await s.app.colony.storage.billingHandoffs.get(reference))?.status).toBe('open');

    expect((await deliver(s, payload, signature(payload, { secret: 'whsec_another' }))).statusCode).toBe(400);
    const logged = lines.join('');
    expect(logged).toContain('evt_outage');
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(header.split('v1=')[1] ?? header);
    expect(logged).not.toContain('sk_test_123');
  });
});
