// Which verified Stripe events the webhook acts on, and which Checkout Session they name.
import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { finishedCheckoutOf } from '../../../api/commerce/billing/stripe-webhook.ts';

const event = (type: string, object: unknown) =>
  ({ id: 'evt_1', type, data: { object } }) as unknown as Stripe.Event;

describe('finishedCheckoutOf', () => {
  it.each(['checkout.session.completed', 'checkout.session.async_payment_succeeded'])(
    'names the Checkout Session of %s',
    (type) => {
      expect(finishedCheckoutOf(event(type, { id: 'cs_test_abc', object: 'checkout.session' }))).toBe(
        'cs_test_abc',
      );
    },
  );

  it.each([
    ['another event type', event('checkout.session.expired', { id: 'cs_test_abc' })],
    ['an async payment that failed', event('checkout.session.async_payment_failed', { id: 'cs_test_abc' })],
    ['an object that is not a Checkout Session', event('checkout.session.completed', { id: 'sub_123' })],
    ['an id that is not a string', event('checkout.session.completed', { id: 42 })],
    ['no object at all', event('checkout.session.completed', undefined)],
  ])('ignores %s', (_name, e) => {
    expect(finishedCheckoutOf(e)).toBeUndefined();
  });
});
