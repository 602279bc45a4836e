// StripeProcessor.confirm maps a retrieved Checkout Session (stand-in client) onto the processor seam;
// its idempotency key follows the cart.
import { describe, expect, it } from 'vitest';
import type { PricedLine } from '../../../api/commerce/checkout-pricing.ts';
import {
  StripeProcessor,
  stripeExpiry,
  stripeIdempotencyKey,
} from '../../../api/commerce/processors/stripe-processor.ts';

const T0 = Date.UTC(2026, 10, 23, 12);
const HOUR = 3_600_000;

function withSession(session: Record<string, unknown>) {
  const client = { checkout: { sessions: { retrieve: async () => session } } } as never;
  return new StripeProcessor({ secretKey: 'sk_test_x', client });
}

describe('StripeProcessor.confirm', () => {
  it('reads a complete session with its trialing subscription', async () => {
    const p = withSession({
      id: 'cs_1',
      status: 'complete',
      subscription: { id: 'sub_1', status: 'trialing', trial_end: 1_800_000_000 },
      total_details: { amount_tax: 1881 },
      customer_details: { address: { country: 'DE' } },
    });
    expect(await p.confirm('cs_1')).toEqual({
      status: 'complete',
      subscriptionRef: 'sub_1',
      subscriptionStatus: 'trialing',
      trialEnd: 1_800_000_000_000,
      details: { stripe_checkout_session: 'cs_1', amount_tax: 1881, billing_country: 'DE' },
    });
  });

  it.each([
    ['open', { status: 'open' }],
    ['expired', { status: 'expired' }],
  ])('reports an %s session as not complete', async (_name, session) => {
    expect((await withSession({ id: 'cs_2', ...session }).confirm('cs_2')).status).toBe(session.status);
  });

  it('waits for a delayed payment: complete but unpaid awaits the payment, paid or free-trial is complete', async () => {
    const session = (payment_status: string) =>
      withSession({ id: 'cs_3', status: 'complete', payment_status, subscription: 'sub_3' });
    expect((await session('unpaid').confirm('cs_3')).status).toBe('awaiting_payment');
    expect((await session('paid').confirm('cs_3')).status).toBe('complete');
    expect((await session('no_payment_required').confirm('cs_3')).status).toBe('complete');
  });
});

describe('stripeIdempotencyKey', () => {
  const line = (itemId: string, unitAmount: number) =>
    ({ itemId, quantity: 1, unitAmount }) as unknown as PricedLine;
  const checkout = (lines: PricedLine[], accountId = 'acct_1') => ({
    sessionId: 'cs_1',
    accountId,
    accountEmail: 'a@example.com',
    lines,
    trialDays: 14,
    successUrl: 's',
    cancelUrl: 'c',
    expiresAt: T0 + 6 * HOUR,
    now: T0,
  });

  it('is the same for repeated clicks and new for another cart or another account', () => {
    const key = stripeIdempotencyKey(checkout([line('plan_pro_monthly', 9900)]));
    expect(stripeIdempotencyKey(checkout([line('plan_pro_monthly', 9900)]))).toBe(key);
    expect(key).toMatch(/^colony-cs_1-acct_1-[0-9a-f]{16}$/);
    expect(stripeIdempotencyKey(checkout([line('plan_team_monthly', 29900)]))).not.toBe(key);
    expect(stripeIdempotencyKey(checkout([line('plan_pro_monthly', 9900)], 'acct_2'))).not.toBe(key);
    // A click an hour later asks Stripe for the same expiry, so it is the same request.
    expect(stripeIdempotencyKey({ ...checkout([line('plan_pro_monthly', 9900)]), now: T0 + HOUR })).toBe(key);
  });
});

describe('stripeExpiry', () => {
  const at = (expiresAt: number, now = T0) => stripeExpiry({ expiresAt, now }) * 1000;

  it('ends the Stripe page with the Colony session', () => {
    expect(at(T0 + 6 * HOUR)).toBe(T0 + 6 * HOUR);
  });

  it("stays within Stripe's window of 30 minutes to 24 hours ahead", () => {
    expect(at(T0 + 10 * 60_000)).toBe(T0 + 31 * 60_000);
    expect(at(T0 + 48 * HOUR)).toBe(T0 + 24 * HOUR - 60_000);
  });
});
