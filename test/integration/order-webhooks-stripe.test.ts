// ACP order webhooks driven by Stripe (issue 16, part 6): an agent platform's checkout paid at Stripe
// and finished by Stripe's webhook sends order_create; Stripe's subscription events send order_update
// only when the order's ACP status changes (a cancellation), once however often Stripe redelivers.
// stripe-mock behind the checkout desk, a real receiver, SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_WEBHOOK_JOB } from '../../api/commerce/order-webhooks/order-events.ts';
import { InjectBrowser } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { useStripeDesk } from '../support/stripe-desk-fixture.ts';
import { deliver, eventBody, SECRET, subscriptionEventBody } from '../support/stripe-events.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

const BOOTSTRAP = 'bootstrap-token-for-stripe-order-webhooks';
const HOOK_SECRET = 'stripe-order-webhooks-secret-0123456789';

const desk = useStripeDesk();

describe.each(storageTargets)('ACP order webhooks from Stripe events on $name', (t) => {
  let s: TestServer;
  let receiver: WebhookReceiver;
  let apiKey: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver(HOOK_SECRET).start();
    s = await startTestServerOn(t, {
      ...desk.env(),
      STRIPE_WEBHOOK_SECRET: SECRET,
      COLONY_CHECKOUT_RATE_LIMIT: '10000',
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
    });
    const registered = await s.app.inject({
      method: 'POST',
      url: '/api/v1/agent-platforms',
      headers: { authorization: `Bearer ${BOOTSTRAP}` },
      payload: {
        id: 'stripe-shopper',
        name: 'Shopper',
        webhookUrl: receiver.url,
        webhookSecret: HOOK_SECRET,
      },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    apiKey = registered.json().apiKey;
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  const forSession = (id: string, type: string) =>
    receiver.accepted().filter((e) => e.body.data.checkout_session_id === id && e.body.type === type);
  const allDelivered = async () =>
    (await s.app.colony.storage.jobs.ofType(ORDER_WEBHOOK_JOB)).every((j) => j.status === 'completed');

  it('sends order_create when Stripe finishes the checkout, and order_update when it cancels', async () => {
    const created = await acp(
      s.app,
      'POST',
      '/checkout_sessions',
      { line_items: [planLine()] },
      { authorization: `Bearer ${apiKey}` },
    );
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const browser = new InjectBrowser(s.app);
    const email = `stripe-hooks-${Date.now()}@example.com`;
    await browser.signUp({ name: 'Ada', email, password: 'analytical engine' });
    await browser.get(`/checkout/${id}`);
    expect((await browser.submit(`/checkout/${id}/pay`, {})).statusCode).toBe(303);
    const [handoff] = await s.app.colony.storage.billingHandoffs.ofSession(id);
    if (!handoff) throw new Error('no hand-off to Stripe');

    // The owner pays at Stripe and closes the tab: Stripe's webhook finishes the checkout.
    desk.pay(handoff.reference);
    expect((await deliver(s, eventBody('checkout.session.completed', handoff.reference))).statusCode).toBe(
      200,
    );
    const [create] = await eventually(
      async () => forSession(id, 'order_create').length > 0 && forSession(id, 'order_create'),
    );
    expect(create?.verified).toBe(true);
    expect(create?.body.data).toMatchObject({ status: 'confirmed' });

    const account = await s.app.colony.storage.identity.accounts.byEmail(email);
    const sub = account && (await s.app.colony.storage.subscriptions.ofAccount(account.id));
    if (!sub) throw new Error('no subscription');
    const now = Math.floor(Date.now() / 1000);

    // Past due is still a confirmed order in ACP's words: no event.
    desk.setSubscription(sub.processorRef, { status: 'past_due', trial_end: null });
    const failed = subscriptionEventBody(
      'customer.subscription.updated',
      sub.processorRef,
      'past_due',
      now - 20,
    );
    expect((await deliver(s, failed)).json()).toEqual({ received: true, outcome: 'synced' });
    expect((await s.app.colony.storage.jobs.ofType(ORDER_WEBHOOK_JOB)).length).toBe(1);

    // Canceled: one order_update, however often Stripe sends the deletion.
    desk.setSubscription(sub.processorRef, { status: 'canceled', trial_end: null });
    const deleted = subscriptionEventBody(
      'customer.subscription.deleted',
      sub.processorRef,
      'canceled',
      now - 10,
    );
    for (let i = 0; i < 3; i++) expect((await deliver(s, deleted)).json().outcome).toBe('synced');
    const [update] = await eventually(
      async () => forSession(id, 'order_update').length > 0 && forSession(id, 'order_update'),
    );
    expect(update?.verified).toBe(true);
    expect(update?.body.data).toMatchObject({ id: create?.body.data.id, status: 'canceled' });
    await eventually(allDelivered);
    expect(
      receiver.received.filter((e) => e.body.data.checkout_session_id === id).map((e) => e.body.type),
    ).toEqual(['order_create', 'order_update']);
  });
});
