// The billing page's server side with the built-in test processor, on SQLite and PostgreSQL: who may pay,
// forged and foreign hand-offs, bad forms, early and repeated returns, and many returns at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { subscriptionOf } from '../support/subscriptions.ts';

describe.each(storageTargets)('billing hand-off on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    const made = await t.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    s = await startTestServer({ COLONY_CHECKOUT_RATE_LIMIT: '10000' }, { storage, runJobs: false });
  });
  afterAll(async () => {
    await s.close();
    await storage.close();
    await dispose();
  });

  async function handedOff(): Promise<string> {
    const created = await acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] });
    const id = created.json().id as string;
    expect((await acp(s.app, 'POST', `/checkout_sessions/${id}/complete`, {})).statusCode).toBe(200);
    return id;
  }

  const owner = () => signedUpOwner(s.app, storage.identity.accounts);

  /** Starts paying: the page, then the form; answers the test processor's reference. */
  async function startPaying(browser: InjectBrowser, id: string): Promise<string> {
    expect((await browser.get(`/checkout/${id}`)).statusCode).toBe(200);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    expect(pay.statusCode, pay.body).toBe(303);
    const reference = new URL(String(pay.headers.location)).searchParams.get('reference');
    if (!reference) throw new Error(`no reference in ${pay.headers.location}`);
    return reference;
  }

  async function payTest(browser: InjectBrowser, id: string, reference: string) {
    const form = `/checkout/${id}/test-processor?reference=${reference}`;
    expect((await browser.get(form)).statusCode).toBe(200);
    return browser.submit(form, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
  }

  const statusOf = async (id: string) => (await storage.checkoutSessions.get(id))?.status;

  it('sends a signed-out visitor to sign in, and refuses a form without its CSRF token', async () => {
    const id = await handedOff();
    const anonymous = new InjectBrowser(s.app);
    const res = await anonymous.submit(`/checkout/${id}/pay`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/signin?return_to=${encodeURIComponent(`/checkout/${id}/pay`)}`);

    const { browser } = await owner();
    await browser.get(`/checkout/${id}`);
    const forged = await browser.request({
      method: 'POST',
      url: `/checkout/${id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '_csrf=forged',
    });
    expect(forged.statusCode).toBe(403);
    expect(await statusOf(id)).toBe('requires_escalation');
  });

  it('answers unknown sessions with 404 and closed sessions with the page, starting no payment', async () => {
    const { browser } = await owner();
    await browser.get('/checkout/cs_missing');
    expect((await browser.submit('/checkout/cs_missing/pay', {})).statusCode).toBe(404);
    const id = await handedOff();
    await acp(s.app, 'POST', `/checkout_sessions/${id}/cancel`);
    await browser.get(`/checkout/${id}`);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    expect(pay.statusCode).toBe(303);
    expect(pay.headers.location).toBe(`/checkout/${id}`);
  });

  it("refuses another account's hand-off at the processor page and on return", async () => {
    const id = await handedOff();
    const first = await owner();
    const reference = await startPaying(first.browser, id);
    const other = await owner();
    await other.browser.get(`/checkout/${id}`);
    expect(
      (await other.browser.get(`/checkout/${id}/test-processor?reference=${reference}`)).statusCode,
    ).toBe(403);
    const foreignPay = await other.browser.submit(`/checkout/${id}/test-processor?reference=${reference}`, {
      name: 'Mallory',
      country: 'US',
      postal_code: '10001',
    });
    expect(foreignPay.statusCode).toBe(403);
    expect((await storage.billingHandoffs.get(reference))?.status).toBe('open');
    // The rightful owner pays; a return by anyone else is still refused and changes nothing.
    expect((await payTest(first.browser, id, reference)).statusCode).toBe(303);
    expect((await other.browser.get(`/checkout/${id}/return?reference=${reference}`)).statusCode).toBe(403);
    expect((await first.browser.get(`/checkout/${id}/return?reference=tp_forged`)).statusCode).toBe(403);
    expect(await subscriptionOf(s.app, other.accountId)).toBeUndefined();
  });

  it('keeps the session open on an early return or a bad address form', async () => {
    const id = await handedOff();
    const { browser, accountId } = await owner();
    const reference = await startPaying(browser, id);
    const early = await browser.get(`/checkout/${id}/return?reference=${reference}`);
    expect(early.statusCode).toBe(200);
    expect(early.body).toContain('The payment was not finished yet');
    const form = `/checkout/${id}/test-processor?reference=${reference}`;
    await browser.get(form);
    for (const fields of [
      { name: '', country: 'GB', postal_code: 'N1' },
      { name: 'Ada', country: 'ZZ', postal_code: 'N1' },
      { name: 'Ada', country: 'GB', postal_code: 'x'.repeat(21) },
    ]) {
      expect((await browser.submit(form, fields)).statusCode).toBe(400);
    }
    expect((await storage.billingHandoffs.get(reference))?.status).toBe('open');
    expect(await statusOf(id)).toBe('requires_escalation');
    expect(await subscriptionOf(s.app, accountId)).toBeUndefined();
  });

  it('records one subscription when two accounts pay for the same checkout', async () => {
    const id = await handedOff();
    const a = await owner();
    const b = await owner();
    const refA = await startPaying(a.browser, id);
    const refB = await startPaying(b.browser, id);
    expect((await payTest(a.browser, id, refA)).statusCode).toBe(303);
    expect((await payTest(b.browser, id, refB)).statusCode).toBe(303);
    expect((await a.browser.get(`/checkout/${id}/return?reference=${refA}`)).statusCode).toBe(303);
    const late = await b.browser.get(`/checkout/${id}/return?reference=${refB}`);
    expect(late.statusCode).toBe(403);
    expect(late.body).toContain('Another account already finished this checkout');
    expect((await subscriptionOf(s.app, a.accountId))?.checkoutSessionId).toBe(id);
    expect(await subscriptionOf(s.app, b.accountId)).toBeUndefined();
    expect((await storage.checkoutSessions.get(id))?.order?.accountId).toBe(a.accountId);
  });

  it('completes once for many returns at once, and a later return changes nothing', async () => {
    const id = await handedOff();
    const { browser, accountId } = await owner();
    const reference = await startPaying(browser, id);
    expect((await payTest(browser, id, reference)).statusCode).toBe(303);
    const returns = await Promise.all(
      Array.from({ length: 10 }, () => browser.get(`/checkout/${id}/return?reference=${reference}`)),
    );
    for (const r of returns) {
      expect(r.statusCode).toBe(303);
      expect(r.headers.location).toBe(`/checkout/${id}`);
    }
    const session = await storage.checkoutSessions.get(id);
    expect(session?.status).toBe('completed');
    const sub = await subscriptionOf(s.app, accountId);
    expect(sub).toMatchObject({ checkoutSessionId: id, plan: 'pro', status: 'trialing', processor: 'test' });
    expect(session?.order?.subscriptionId).toBe(sub?.id);

    const again = await browser.get(`/checkout/${id}/return?reference=${reference}`);
    expect(again.statusCode).toBe(303);
    expect((await storage.checkoutSessions.get(id))?.revision).toBe(session?.revision);
    expect((await subscriptionOf(s.app, accountId))?.id).toBe(sub?.id);
    // Completed is final for the agent too.
    const cancel = await acp(s.app, 'POST', `/checkout_sessions/${id}/cancel`);
    expect(cancel.statusCode).toBe(405);
    expect(cancel.json().code).toBe('session_final');
  });
});
