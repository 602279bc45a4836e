// The Stripe processor against stripe-mock (Stripe's own mock, which checks every parameter against
// Stripe's OpenAPI description), directly and behind the billing page.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceCart } from '../../api/commerce/checkout-pricing.ts';
import { StripeProcessor } from '../../api/commerce/processors/stripe-processor.ts';
import { buildCatalog } from '../../api/domain/pricing/catalog.ts';
import { loadPriceList } from '../../api/domain/pricing/price-list.ts';
import { InjectBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type StripeMock, startStripeMock } from '../support/stripe-mock.ts';

let mock: StripeMock;
beforeAll(async () => {
  mock = await startStripeMock();
});
afterAll(async () => {
  await mock.stop();
});

const catalog = buildCatalog(loadPriceList());
function lines(...ids: string[]) {
  const priced = priceCart(
    ids.map((itemId) => ({ itemId, quantity: 1 })),
    catalog,
    { trialDays: 14, priceListVersion: 'x' },
  );
  if (!('cart' in priced)) throw new Error('unknown item');
  return priced.cart.lines;
}

const checkoutFor = (sessionId: string, ls = lines('plan_pro_monthly', 'addon_backups')) => ({
  sessionId,
  accountId: 'acct_test',
  accountEmail: 'owner@example.com',
  lines: ls,
  trialDays: 14,
  successUrl: 'http://colony.test/checkout/x/return?reference={REFERENCE}',
  cancelUrl: 'http://colony.test/checkout/x',
  expiresAt: Date.now() + 6 * 3_600_000,
  now: Date.now(),
});

describe('StripeProcessor against stripe-mock', () => {
  const processor = () => new StripeProcessor({ secretKey: 'sk_test_123', apiUrl: mock.url });

  it('creates a subscription-mode Checkout Session that stripe-mock accepts', async () => {
    const started = await processor().start(checkoutFor('cs_abc'));
    expect(started.reference).toMatch(/^cs_/);
    expect(started.redirectUrl).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  });

  it('is refused by stripe-mock when a parameter is not one Stripe knows', async () => {
    const bad = lines('plan_pro_monthly').map((l) => ({ ...l, interval: 'fortnight' as 'month' }));
    await expect(processor().start(checkoutFor('cs_bad', bad))).rejects.toThrow(
      /interval|fortnight|invalid/i,
    );
  });

  it('changes a subscription in one prorated update that stripe-mock accepts', async () => {
    const changed = await processor().changeSubscription({
      subscription: { processorRef: 'sub_123', accountId: 'acct_test', status: 'trialing', trialEnd: null },
      sessionId: 'cs_change',
      lines: lines('plan_team_annual'),
    });
    expect(['trialing', 'active']).toContain(changed.subscriptionStatus);
    // The same parameter check as for a Checkout Session: a line Stripe cannot bill is refused.
    const bad = lines('plan_pro_monthly').map((l) => ({ ...l, interval: 'fortnight' as 'month' }));
    await expect(
      processor().changeSubscription({
        subscription: { processorRef: 'sub_123', accountId: 'acct_test', status: 'active', trialEnd: null },
        sessionId: 'cs_change_bad',
        lines: bad,
      }),
    ).rejects.toThrow(/interval|fortnight|invalid/i);
  });

  it('reports an open Checkout Session as not finished', async () => {
    expect(await processor().confirm('cs_test_open')).toEqual({ status: 'open' });
  });

  it('knows test keys from live ones', () => {
    expect(processor().testMode).toBe(true);
    expect(new StripeProcessor({ secretKey: 'sk_live_abc', apiUrl: mock.url }).testMode).toBe(false);
  });
});

describe('the billing page with Stripe', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      COLONY_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_123',
      COLONY_STRIPE_API_URL: mock.url,
    });
  });
  afterAll(async () => {
    await s.close();
  });

  const cookieOf = (setCookie: string | string[] | undefined, name: string) => {
    const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
    return all.find((c) => c.startsWith(`${name}=`))?.split(';')[0];
  };

  it('hands a signed-in owner to Stripe Checkout and does not complete until Stripe says so', async () => {
    const created = await s.app.inject({
      method: 'POST',
      url: '/checkout_sessions',
      payload: { line_items: [{ item: { id: 'plan_pro_monthly' } }] },
    });
    const id = created.json().id;

    const form = await s.app.inject({ url: '/signup' });
    const csrf = cookieOf(form.headers['set-cookie'], 'colony_csrf') ?? '';
    const token = csrf.split('=')[1] ?? '';
    const signup = await s.app.inject({
      method: 'POST',
      url: '/signup',
      headers: { cookie: csrf, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        _csrf: token,
        name: 'Ada',
        email: 'ada@example.com',
        password: 'analytical engine',
        return_to: `/checkout/${id}`,
      }).toString(),
    });
    expect(signup.statusCode).toBe(303);
    const session = cookieOf(signup.headers['set-cookie'], 'colony_session') ?? '';
    const cookie = `${csrf}; ${session}`;

    const pay = await s.app.inject({
      method: 'POST',
      url: `/checkout/${id}/pay`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${token}`,
    });
    expect(pay.statusCode).toBe(303);
    expect(pay.headers.location).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const forged = await s.app.inject({
      method: 'POST',
      url: `/checkout/${id}/pay`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_csrf=forged',
    });
    expect(forged.statusCode).toBe(403);

    const account = await s.app.colony.storage.identity.accounts.byEmail('ada@example.com');
    const [handoff] = await s.app.colony.storage.billingHandoffs.ofSession(id);
    expect(handoff).toMatchObject({ processor: 'stripe', accountId: account?.id, status: 'open' });
    expect(handoff?.reference).toMatch(/^cs_/);

    // A reference that is not this account's hand-off is refused.
    const foreign = await s.app.inject({
      url: `/checkout/${id}/return?reference=cs_test_unknown`,
      headers: { cookie },
    });
    expect(foreign.statusCode).toBe(403);
    // stripe-mock's Checkout Sessions stay open, so the owner comes back to an unfinished payment.
    const back = await s.app.inject({
      url: `/checkout/${id}/return?reference=${handoff?.reference}`,
      headers: { cookie },
    });
    expect(back.statusCode).toBe(200);
    expect(back.body).toContain('The payment was not finished yet');
    expect((await s.app.inject({ url: `/checkout_sessions/${id}` })).json().status).toBe('ready_for_payment');
    expect(await s.app.colony.storage.orders.bySession(id)).toBeUndefined();
  });
});

/** A signed-up owner presses Pay on a fresh checkout; the answer, and how long it took. */
async function pay(s: TestServer) {
  const created = await s.app.inject({
    method: 'POST',
    url: '/checkout_sessions',
    payload: { line_items: [{ item: { id: 'plan_pro_monthly' } }] },
  });
  const id = created.json().id;
  const browser = new InjectBrowser(s.app);
  await browser.signUp({ name: 'Ada', email: 'ada@example.com', password: 'analytical engine' });
  await browser.get(`/checkout/${id}`);
  const started = performance.now();
  const res = await browser.submit(`/checkout/${id}/pay`, {});
  return { id, res, ms: performance.now() - started };
}

/** The owner is told nothing was charged, and nothing was recorded or leaked. */
async function expectProcessorDown(s: TestServer, key: string, paid: Awaited<ReturnType<typeof pay>>) {
  expect(paid.res.statusCode).toBe(503);
  expect(paid.res.headers['content-type']).toContain('text/html');
  expect(paid.res.body).toContain('The payment processor could not be reached. Nothing was charged');
  expect(paid.res.body).not.toContain(key);
  expect(await s.app.colony.storage.billingHandoffs.ofSession(paid.id)).toEqual([]);
  const session = await s.app.inject({ url: `/checkout_sessions/${paid.id}` });
  expect(session.json().status).toBe('ready_for_payment');
}

describe('the billing page when Stripe cannot be reached', () => {
  let s: TestServer;
  beforeAll(async () => {
    // A loopback port nothing listens on: connections are refused at once.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
      });
    });
    s = await startTestServer({
      COLONY_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_unreachable_key',
      COLONY_STRIPE_API_URL: `http://127.0.0.1:${closed}`,
    });
  });
  afterAll(async () => {
    await s.close();
  });

  it('tells the owner nothing was charged, records no hand-off and leaks no key', async () => {
    await expectProcessorDown(s, 'sk_test_unreachable_key', await pay(s));
  });
});

describe('the billing page when Stripe accepts connections and never answers', () => {
  let s: TestServer;
  let hung: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    hung = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const address = hung.address();
    const port = typeof address === 'object' && address ? address.port : 1;
    s = await startTestServer({
      COLONY_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_hung_key',
      COLONY_STRIPE_API_URL: `http://127.0.0.1:${port}`,
      COLONY_PAYMENT_TIMEOUT_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await s.close();
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => hung.close(resolve));
  });

  it('answers 503 on the billing page once the processor timeout is over', async () => {
    const paid = await pay(s);
    // A bound on a failure mode (Stripe's own default would wait 80 s), not a performance figure.
    expect(paid.ms).toBeLessThan(5_000);
    expect(held.length).toBeGreaterThan(0);
    await expectProcessorDown(s, 'sk_test_hung_key', paid);
  });
});
