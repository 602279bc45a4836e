// The account's plan page with Stripe (stripe-mock behind the checkout desk, which lets a test set what
// a subscription looks like), on SQLite and PostgreSQL: the subscription read with its payment method,
// the upcoming invoice and the customer's invoices; Colony's record kept in step with what was read;
// the hosted customer portal for payment details and cancelling; and a Stripe that cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import type { SubscriptionRecord } from '../../api/commerce/subscriptions-repo.ts';
import { type InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { textOf } from '../support/http-browser.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { useStripeDesk } from '../support/stripe-desk-fixture.ts';

const DAY_S = 24 * 60 * 60;
const isoDate = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
let subscriptions = 0;

const desk = useStripeDesk();

describe.each(storageTargets)('the plan page with Stripe on $name', (t) => {
  let s: TestServer;
  let storage: Storage;

  beforeAll(async () => {
    s = await startTestServerOn(t, desk.env(), { runJobs: false });
    storage = s.app.colony.storage;
  });
  afterAll(() => s.close());

  /** A signed-in owner whose account holds a Stripe subscription (as a finished checkout records it). */
  async function subscribed(): Promise<{ browser: InjectBrowser; sub: SubscriptionRecord; orderId: string }> {
    const { browser, accountId } = await signedUpOwner(s.app, storage.identity.accounts);
    const n = ++subscriptions;
    const now = Date.now();
    const items = [{ itemId: 'plan_pro_monthly', quantity: 1, unitAmount: 9900 }];
    const sub = await storage.subscriptions.record({
      id: `sub_colony_${t.name}_${n}`,
      accountId,
      checkoutSessionId: `cs_portal_${t.name}_${n}`,
      status: 'active',
      plan: 'pro',
      interval: 'month',
      items,
      trialEnd: null,
      processor: 'stripe',
      processorRef: `sub_portal_${t.name}_${n}`,
      testMode: true,
      createdAt: now,
      updatedAt: now,
    });
    const orderId = `ord_portal_${t.name}_${n}`;
    await storage.orders.record({
      id: orderId,
      accountId,
      checkoutSessionId: sub.checkoutSessionId,
      subscriptionId: sub.id,
      kind: 'subscribe',
      plan: 'pro',
      interval: 'month',
      items,
      trialEnd: null,
      createdAt: now,
    });
    return { browser, sub, orderId };
  }

  const count = (request: string) => desk.requests.filter((r) => r === request).length;

  it('reads the plan, trial, next charge, card and invoices from Stripe and records the standing it read', async () => {
    const { browser, sub, orderId } = await subscribed();
    const trialEnd = Math.floor(Date.now() / 1000) + 10 * DAY_S;
    desk.setSubscription(sub.processorRef, {
      status: 'trialing',
      trial_end: trialEnd,
      cancel_at_period_end: false,
      cancel_at: null,
      ended_at: null,
    });
    const previews = count('POST /v1/invoices/create_preview');
    const page = await browser.get(`/account/orders/${orderId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="order-focus"');
    expect(textOf(page.body, 'portal-plan')).toBe('pro (monthly)');
    expect(textOf(page.body, 'portal-status')).toBe(`free trial until ${isoDate(trialEnd)}`);
    expect(textOf(page.body, 'next-charge')).toMatch(new RegExp(`^\\$[0-9,.]+ on ${isoDate(trialEnd)}$`));
    expect(count('POST /v1/invoices/create_preview')).toBe(previews + 1);
    expect(textOf(page.body, 'payment-method')).toBe('visa •••• 4242');
    expect(page.body).toMatch(/<li id="invoice-in_[A-Za-z0-9]+">/);
    expect(desk.requests).toContain('GET /v1/invoices');
    // Stripe's word is recorded: the trial it reported is now Colony's too.
    expect(await storage.subscriptions.ofAccount(sub.accountId)).toMatchObject({
      id: sub.id,
      status: 'trialing',
      trialEnd: trialEnd * 1000,
    });
    // Payment details and cancelling are Stripe's hosted portal; Colony's own cancel is not offered.
    expect(page.body).toContain('id="manage-billing"');
    expect(page.body).toContain('id="cancel"');
    expect(page.body).not.toContain('href="/account/plan/cancel"');
    expect((await browser.get('/account/plan/cancel')).statusCode).toBe(404);
  });

  it('shows a cancel made at Stripe as the end date, with nothing more to charge', async () => {
    const { browser, sub } = await subscribed();
    const endsAt = Math.floor(Date.now() / 1000) + 20 * DAY_S;
    desk.setSubscription(sub.processorRef, {
      status: 'active',
      trial_end: null,
      cancel_at_period_end: true,
      cancel_at: endsAt,
    });
    const previews = count('POST /v1/invoices/create_preview');
    const page = await browser.get('/account/plan');
    expect(page.body).toContain(`id="ends-on">${isoDate(endsAt)} `);
    expect(textOf(page.body, 'next-charge')).toBe('none: nothing more will be charged');
    expect(count('POST /v1/invoices/create_preview')).toBe(previews);
    expect(page.body).not.toContain('id="cancel"');
  });

  it("sends the owner to Stripe's hosted portal, only from a genuine form of the account's own", async () => {
    const { browser, sub } = await subscribed();
    desk.setSubscription(sub.processorRef, {
      status: 'active',
      trial_end: null,
      cancel_at_period_end: false,
    });
    await browser.get('/account/plan');
    const sessions = count('POST /v1/billing_portal/sessions');

    const forged = await browser.submit('/account/plan/portal', { flow: 'cancel', _csrf: 'y'.repeat(32) });
    expect(forged.statusCode).toBe(403);
    const crossSite = await browser.submit(
      '/account/plan/portal',
      { flow: 'cancel' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(count('POST /v1/billing_portal/sessions')).toBe(sessions);

    const cancel = await browser.submit('/account/plan/portal', { flow: 'cancel' });
    expect(cancel.statusCode).toBe(303);
    expect(String(cancel.headers.location)).toMatch(/^https:\/\/[^/]+\/session\//);
    const manage = await browser.submit('/account/plan/portal', { flow: 'manage' });
    expect(manage.statusCode).toBe(303);
    expect(count('POST /v1/billing_portal/sessions')).toBe(sessions + 2);

    // An account without a subscription opens no portal (for nobody's customer): back to its plan page.
    const { browser: other } = await signedUpOwner(s.app, storage.identity.accounts);
    await other.get('/account/plan');
    const none = await other.submit('/account/plan/portal', { flow: 'cancel' });
    expect(none.headers.location).toBe('/account/plan');
    expect(count('POST /v1/billing_portal/sessions')).toBe(sessions + 2);
  });

  it("shows Colony's record when Stripe cannot be reached, and says so", async () => {
    const { browser, sub } = await subscribed();
    desk.breakSubscription(sub.processorRef);
    const page = await browser.get('/account/plan');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="processor-down"');
    expect(textOf(page.body, 'portal-plan')).toBe('pro (monthly)');
    expect(textOf(page.body, 'portal-status')).toBe('active');
    expect(textOf(page.body, 'next-charge')).toBe('unknown (the processor cannot be reached)');
    expect(page.body).toContain('Not available while the payment processor cannot be reached.');
    expect((await storage.subscriptions.ofAccount(sub.accountId))?.status).toBe('active');
    const portal = await browser.submit('/account/plan/portal', { flow: 'manage' });
    expect(portal.statusCode).toBe(503);
    expect(textOf(portal.body, 'notice')).toMatch(/^The payment processor could not be reached/);
  });
});
