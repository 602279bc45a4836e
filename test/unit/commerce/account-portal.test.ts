// The plan page's pure parts: the test processor's billing periods and description, Stripe's objects
// read as a description, and the page itself (escaping, the usage slot, the actions each processor gets).
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { type PortalView, renderPortalPage } from '../../../api/commerce/billing/account-portal-page.ts';
import type { BillingHandoff } from '../../../api/commerce/billing-handoffs-repo.ts';
import { orderPermalink } from '../../../api/commerce/checkout-session.ts';
import { describeStripeSubscription, renews } from '../../../api/commerce/processors/stripe-description.ts';
import { portalSessionParams } from '../../../api/commerce/processors/stripe-portal.ts';
import {
  addMonths,
  currentPeriodEnd,
  describeTestSubscription,
} from '../../../api/commerce/processors/test-processor-billing.ts';
import type { SubscriptionRecord } from '../../../api/commerce/subscriptions-repo.ts';

const at = (iso: string) => Date.parse(iso);

describe('addMonths', () => {
  it.each([
    ['2026-01-15T10:00:00Z', 1, '2026-02-15T10:00:00.000Z'],
    ['2026-01-31T10:00:00Z', 1, '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T00:00:00Z', 1, '2028-02-29T00:00:00.000Z'],
    ['2026-01-31T23:59:00Z', 3, '2026-04-30T23:59:00.000Z'],
    ['2026-11-30T08:00:00Z', 12, '2027-11-30T08:00:00.000Z'],
    ['2026-12-31T08:00:00Z', 2, '2027-02-28T08:00:00.000Z'],
  ])('moves %s by %i months to %s, clamping the day as Stripe does', (from, months, to) => {
    expect(new Date(addMonths(at(from), months)).toISOString()).toBe(to);
  });
});

const subscription = (over: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  id: 'sub_1',
  accountId: 'acct_1',
  checkoutSessionId: 'cs_1',
  status: 'active',
  plan: 'pro',
  interval: 'month',
  items: [
    { itemId: 'plan_pro_monthly', quantity: 1, unitAmount: 9900 },
    { itemId: 'addon_backups', quantity: 1, unitAmount: 1500 },
  ],
  trialEnd: null,
  processor: 'test',
  processorRef: 'tp_1',
  testMode: true,
  createdAt: at('2026-01-31T12:00:00Z'),
  updatedAt: at('2026-01-31T12:00:00Z'),
  ...over,
});

describe('currentPeriodEnd', () => {
  it('is the trial end while the trial runs', () => {
    const s = subscription({ status: 'trialing', trialEnd: at('2026-02-14T12:00:00Z') });
    expect(currentPeriodEnd(s, at('2026-02-01T00:00:00Z'))).toBe(at('2026-02-14T12:00:00Z'));
  });

  it('counts whole periods from the trial end, or from the start without one', () => {
    const afterTrial = subscription({ trialEnd: at('2026-02-14T12:00:00Z') });
    expect(currentPeriodEnd(afterTrial, at('2026-03-20T00:00:00Z'))).toBe(at('2026-04-14T12:00:00Z'));
    expect(currentPeriodEnd(subscription(), at('2026-02-28T12:00:00Z'))).toBe(at('2026-03-31T12:00:00Z'));
    const annual = subscription({ interval: 'year' });
    expect(currentPeriodEnd(annual, at('2026-06-01T00:00:00Z'))).toBe(at('2027-01-31T12:00:00Z'));
  });
});

const handoff = (over: Partial<BillingHandoff> = {}): BillingHandoff => ({
  reference: 'tp_1',
  processor: 'test',
  checkoutSessionId: 'cs_1',
  accountId: 'acct_1',
  status: 'complete',
  data: {
    trial_days: 14,
    subtotal: 11400,
    tax_rate_percent: 20,
    amount_tax: 2280,
    paid_at: at('2026-01-31T12:00:00Z'),
  },
  createdAt: at('2026-01-31T11:00:00Z'),
  updatedAt: at('2026-01-31T12:00:00Z'),
  ...over,
});

describe('describeTestSubscription', () => {
  const now = at('2026-02-10T00:00:00Z');

  it("charges the items with the billing country's test tax at the end of the period", () => {
    const own = handoff();
    const d = describeTestSubscription(
      subscription(),
      { handoffs: [own, handoff({ status: 'open' })], own },
      now,
    );
    expect(d).toMatchObject({
      status: 'active',
      cancelAt: null,
      nextCharge: { amount: 13680, currency: 'usd', at: at('2026-02-28T12:00:00Z') },
      paymentMethod: null,
    });
    expect(d.invoices).toEqual([
      expect.objectContaining({
        id: 'tp_1',
        total: 0,
        status: 'paid',
        description: 'Free trial started (test mode)',
      }),
    ]);
  });

  it('charges nothing more once a cancel is pending, and has ended once its date passed', () => {
    const own = handoff({ data: { ...handoff().data, cancel_at: at('2026-02-28T12:00:00Z') } });
    const pending = describeTestSubscription(subscription(), { handoffs: [own], own }, now);
    expect(pending).toMatchObject({
      status: 'active',
      cancelAt: at('2026-02-28T12:00:00Z'),
      nextCharge: null,
    });
    const ended = describeTestSubscription(
      subscription(),
      { handoffs: [own], own },
      at('2026-02-28T12:00:00Z'),
    );
    expect(ended.status).toBe('canceled');
  });
});

function stripeSub(over: Record<string, unknown> = {}): Stripe.Subscription {
  return {
    id: 'sub_s',
    object: 'subscription',
    status: 'active',
    customer: 'cus_1',
    trial_end: null,
    cancel_at_period_end: false,
    cancel_at: null,
    ended_at: null,
    default_payment_method: null,
    items: { data: [{ current_period_end: 1_780_000_000 }, { current_period_end: 1_770_000_000 }] },
    ...over,
  } as unknown as Stripe.Subscription;
}

const invoice = (over: Record<string, unknown> = {}) =>
  ({
    id: 'in_1',
    number: 'ABC-0001',
    status: 'paid',
    total: 13680,
    amount_due: 13680,
    currency: 'usd',
    created: 1_760_000_000,
    description: null,
    billing_reason: 'subscription_cycle',
    hosted_invoice_url: 'https://invoice.stripe.com/i/x',
    invoice_pdf: 'https://pay.stripe.com/invoice/x/pdf',
    next_payment_attempt: null,
    period_end: 1_760_000_000,
    ...over,
  }) as unknown as Stripe.Invoice;

describe('describeStripeSubscription', () => {
  it('reads the next charge from the preview at the earliest renewal, and the invoices with their links', () => {
    const d = describeStripeSubscription(stripeSub(), invoice({ amount_due: 11400 }), [invoice()]);
    expect(d.nextCharge).toEqual({ amount: 11400, currency: 'usd', at: 1_770_000_000_000 });
    expect(d.invoices[0]).toEqual({
      id: 'in_1',
      number: 'ABC-0001',
      status: 'paid',
      total: 13680,
      currency: 'usd',
      createdAt: 1_760_000_000_000,
      description: 'Renewal',
      hostedUrl: 'https://invoice.stripe.com/i/x',
      pdfUrl: 'https://pay.stripe.com/invoice/x/pdf',
    });
  });

  it("takes the subscription's card, else the customer's default method for invoices", () => {
    const card = { type: 'card', card: { brand: 'mastercard', last4: '4444' } };
    expect(
      describeStripeSubscription(stripeSub({ default_payment_method: card }), null, []).paymentMethod,
    ).toEqual({
      brand: 'mastercard',
      last4: '4444',
    });
    const sepa = { type: 'sepa_debit', sepa_debit: { last4: '3000' } };
    const customer = { id: 'cus_1', invoice_settings: { default_payment_method: sepa } };
    expect(describeStripeSubscription(stripeSub({ customer }), null, []).paymentMethod).toEqual({
      brand: 'sepa_debit',
      last4: '3000',
    });
  });

  it('has nothing more to charge once set to end, and says when it ends', () => {
    const ending = stripeSub({ cancel_at_period_end: true });
    expect(renews(ending)).toBe(false);
    const d = describeStripeSubscription(ending, invoice(), []);
    expect(d).toMatchObject({ nextCharge: null, cancelAt: 1_770_000_000_000 });
    expect(describeStripeSubscription(stripeSub({ cancel_at: 1_790_000_000 }), null, []).cancelAt).toBe(
      1_790_000_000_000,
    );
  });
});

describe('portalSessionParams', () => {
  it("opens Stripe's portal for the customer, on cancelling the subscription when asked", () => {
    const sub = stripeSub({ customer: { id: 'cus_9' } });
    expect(portalSessionParams(sub, 'https://c.test/account/plan', 'manage')).toEqual({
      customer: 'cus_9',
      return_url: 'https://c.test/account/plan',
    });
    expect(portalSessionParams(sub, 'https://c.test/account/plan', 'cancel').flow_data).toEqual({
      type: 'subscription_cancel',
      subscription_cancel: { subscription: 'sub_s' },
      after_completion: { type: 'redirect', redirect: { return_url: 'https://c.test/account/plan' } },
    });
  });
});

describe('renderPortalPage', () => {
  const view = (over: Partial<PortalView> = {}): PortalView => ({
    subscription: subscription({ plan: '<script>' }),
    orders: [],
    description: undefined,
    processorDown: false,
    hostedPortal: false,
    testMode: true,
    plans: [{ itemId: 'plan_pro_monthly', plan: 'pro', interval: 'month' }],
    csrf: 'token',
    ...over,
  });

  it('escapes what it shows and places the usage section as given', () => {
    const html = renderPortalPage(view({ usageSection: '<section id="usage">12 credits</section>' }));
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62; (monthly)');
    expect(html).toContain('<section id="usage">12 credits</section>');
    expect(renderPortalPage(view())).not.toContain('id="usage"');
  });

  it("offers Colony's own cancel without a hosted portal, and the portal's buttons with one", () => {
    expect(renderPortalPage(view())).toContain('href="/account/plan/cancel"');
    const hosted = renderPortalPage(view({ hostedPortal: true }));
    expect(hosted).not.toContain('href="/account/plan/cancel"');
    expect(hosted).toContain('name="flow" value="cancel"');
    expect(hosted).toContain('name="flow" value="manage"');
  });
});

describe('orderPermalink', () => {
  it('names the order under the account page, escaped for a path', () => {
    const order = { orderId: 'ord_1/x', subscriptionId: 'sub_1', accountId: 'a', trialEnd: null };
    expect(orderPermalink('https://c.test/account', order)).toBe('https://c.test/account/orders/ord_1%2Fx');
    const { orderId: _none, ...older } = order;
    expect(orderPermalink('https://c.test/account', older)).toBe('https://c.test/account/orders/sub_1');
  });
});
