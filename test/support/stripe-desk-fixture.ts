// One stripe-mock behind one checkout desk for a whole test file: started before its tests, stopped
// after them, and handed out as the desk itself, so a file reads `desk.pay(...)` as if it owned it.
import { afterAll, beforeAll } from 'vitest';
import { type StripeCheckoutDesk, startStripeCheckoutDesk } from './stripe-checkout-desk.ts';
import { type StripeMock, startStripeMock } from './stripe-mock.ts';

export interface StripeDeskFixture extends StripeCheckoutDesk {
  /** stripe-mock itself, for a test that puts a desk of its own in front of it. */
  readonly mockUrl: string;
  /** The server settings that send Colony's Stripe calls through the desk. */
  env(): Record<string, string>;
}

export function useStripeDesk(): StripeDeskFixture {
  let mock: StripeMock | undefined;
  let desk: StripeCheckoutDesk | undefined;
  beforeAll(async () => {
    mock = await startStripeMock();
    desk = await startStripeCheckoutDesk(mock.url);
  });
  afterAll(async () => {
    await desk?.close();
    await mock?.stop();
  });
  const live = (): StripeCheckoutDesk => {
    if (!desk) throw new Error('the Stripe desk runs only inside the tests of the file that uses it');
    return desk;
  };
  return {
    get url() {
      return live().url;
    },
    get mockUrl() {
      return mock?.url ?? live().url;
    },
    get retrieved() {
      return live().retrieved;
    },
    get requests() {
      return live().requests;
    },
    pay: (id) => live().pay(id),
    payLater: (id) => live().payLater(id),
    setSubscription: (id, fields) => live().setSubscription(id, fields),
    breakSubscription: (id) => live().breakSubscription(id),
    close: () => live().close(),
    env: () => ({
      COLONY_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_123',
      COLONY_STRIPE_API_URL: live().url,
    }),
  };
}
