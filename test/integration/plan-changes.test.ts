// One subscription per account (issue 16): a second checkout by an account with a plan changes that
// plan, with every order id still readable; the free trial is one per account; and two hosted payments
// started side by side never leave two subscriptions. The built-in test processor, SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import { type InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { textOf } from '../support/http-browser.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('plan changes on $name', (t) => {
  let s: TestServer;
  let storage: Storage;

  beforeAll(async () => {
    s = await startTestServerOn(t, { COLONY_CHECKOUT_RATE_LIMIT: '10000' }, { runJobs: false });
    storage = s.app.colony.storage;
  });
  afterAll(() => s.close());

  /** An agent's checkout for these catalog items, handed to the owner. */
  async function handedOff(...items: string[]): Promise<string> {
    const line_items = items.map((id) => planLine(id));
    const created = await acp(s.app, 'POST', '/checkout_sessions', { line_items });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect((await acp(s.app, 'POST', `/checkout_sessions/${id}/complete`, {})).statusCode).toBe(200);
    return id;
  }

  const owner = () => signedUpOwner(s.app, storage.identity.accounts);

  /** Through the hosted page and the test processor's form; answers the return's status. */
  async function buyAtProcessor(browser: InjectBrowser, id: string): Promise<number> {
    const reference = await startPaying(browser, id);
    const form = `/checkout/${id}/test-processor?reference=${reference}`;
    await browser.get(form);
    const paid = await browser.submit(form, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
    expect(paid.statusCode).toBe(303);
    return (await browser.get(`/checkout/${id}/return?reference=${reference}`)).statusCode;
  }

  async function startPaying(browser: InjectBrowser, id: string): Promise<string> {
    await browser.get(`/checkout/${id}`);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    expect(pay.statusCode, pay.body).toBe(303);
    const reference = new URL(String(pay.headers.location), 'http://x').searchParams.get('reference');
    if (!reference) throw new Error(`no reference in ${pay.headers.location}`);
    return reference;
  }

  const orderOf = async (id: string) => (await acp(s.app, 'GET', `/checkout_sessions/${id}`)).json().order;

  it('changes the one subscription on a second checkout, keeping every order id readable', async () => {
    const { browser, accountId } = await owner();
    const first = await handedOff('plan_starter_monthly');
    expect(await buyAtProcessor(browser, first)).toBe(303);
    const bought = await storage.subscriptions.ofAccount(accountId);
    expect(bought).toMatchObject({ plan: 'starter', interval: 'month', status: 'trialing' });
    const firstOrder = await orderOf(first);
    expect(firstOrder.id).toMatch(/^ord_/);

    // The page says it is a change before the owner confirms, and confirming opens no hosted payment.
    const second = await handedOff('plan_pro_annual');
    const page = await browser.get(`/checkout/${second}`);
    expect(textOf(page.body, 'change-from')).toBe('starter (monthly)');
    expect(textOf(page.body, 'change-to')).toBe('pro (annual)');
    expect(textOf(page.body, 'pay')).toBe('Change plan');
    const confirm = await browser.submit(`/checkout/${second}/pay`, {});
    expect(confirm.statusCode).toBe(303);
    expect(confirm.headers.location).toBe(`/checkout/${second}`);

    const changed = await storage.subscriptions.ofAccount(accountId);
    expect(changed).toMatchObject({
      id: bought?.id,
      processorRef: bought?.processorRef,
      plan: 'pro',
      interval: 'year',
      status: 'trialing',
      trialEnd: bought?.trialEnd,
      createdAt: bought?.createdAt,
    });
    const secondOrder = await orderOf(second);
    expect(secondOrder.id).toMatch(/^ord_/);
    expect(secondOrder.id).not.toBe(firstOrder.id);
    // Both orders stay: the first checkout still names its own, and both read back.
    expect((await orderOf(first)).id).toBe(firstOrder.id);
    expect(await storage.orders.get(firstOrder.id)).toMatchObject({ kind: 'subscribe', plan: 'starter' });
    expect(await storage.orders.get(secondOrder.id)).toMatchObject({
      kind: 'change',
      plan: 'pro',
      interval: 'year',
      from: { plan: 'starter', interval: 'month' },
      subscriptionId: bought?.id,
    });
    const done = await browser.get(`/checkout/${second}`);
    expect(textOf(done.body, 'order-id')).toBe(secondOrder.id);
    expect(done.body).toContain('Your plan changed from starter (monthly) to pro (annual).');

    // A repeated confirm changes nothing more.
    await browser.submit(`/checkout/${second}/pay`, {});
    expect((await storage.orders.ofAccount(accountId)).length).toBe(2);

    // Back to monthly, adding Backups: still the one subscription.
    const third = await handedOff('plan_pro_monthly', 'addon_backups');
    await browser.get(`/checkout/${third}`);
    expect((await browser.submit(`/checkout/${third}/pay`, {})).statusCode).toBe(303);
    const now = await storage.subscriptions.ofAccount(accountId);
    expect(now).toMatchObject({ id: bought?.id, plan: 'pro', interval: 'month' });
    expect(now?.items.map((i) => i.itemId).sort()).toEqual(['addon_backups', 'plan_pro_monthly']);
    const ids = (await storage.orders.ofAccount(accountId)).map((o) => o.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(firstOrder.id);

    // The account page shows the one plan and every order, the first one included.
    const account = await browser.get('/account');
    expect(textOf(account.body, 'plan')).toMatch(/^pro \(monthly\):/);
    expect(textOf(account.body, 'plan-status')).toMatch(/^free trial until \d{4}-\d{2}-\d{2}$/);
    for (const id of ids) expect(account.body).toContain(`<code>${id}</code>`);
    expect(account.body).toContain('Changed from starter (monthly) to pro (annual)');
    expect(account.body).toContain('Bought starter (monthly)');
  });

  it('offers the free trial once per account, not once per purchase', async () => {
    const { browser, accountId } = await owner();
    const before = await browser.get('/account');
    expect(textOf(before.body, 'plan')).toMatch(/^No plan yet\./);
    expect(before.body).not.toContain('id="orders"');
    expect(await buyAtProcessor(browser, await handedOff('plan_starter_monthly'))).toBe(303);
    const first = await storage.subscriptions.ofAccount(accountId);
    expect(first?.trialEnd).not.toBeNull();
    // Canceled (as the processor's webhook will record it): buying again starts no second trial.
    if (first) await storage.subscriptions.record({ ...first, status: 'canceled' });
    const again = await handedOff('plan_pro_monthly');
    const page = await browser.get(`/checkout/${again}`);
    expect(page.body).toContain('id="no-trial"');
    expect(page.body).not.toContain('id="trial"');
    expect(await buyAtProcessor(browser, again)).toBe(303);
    expect(await storage.subscriptions.ofAccount(accountId)).toMatchObject({
      id: first?.id,
      plan: 'pro',
      status: 'active',
      trialEnd: null,
    });
    expect((await orderOf(again)).id).toMatch(/^ord_/);
    expect(textOf((await browser.get('/account')).body, 'plan-status')).toBe('active');
  });

  it('cancels a second hosted payment finished while the first made a subscription', async () => {
    const { browser, accountId } = await owner();
    const a = await handedOff('plan_starter_monthly');
    const b = await handedOff('plan_team_monthly');
    // Both hosted payments start before either finishes, so neither page saw a plan to change.
    const refA = await startPaying(browser, a);
    const refB = await startPaying(browser, b);
    for (const [id, ref] of [
      [a, refA],
      [b, refB],
    ] as const) {
      const form = `/checkout/${id}/test-processor?reference=${ref}`;
      await browser.get(form);
      await browser.submit(form, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
    }
    expect((await browser.get(`/checkout/${a}/return?reference=${refA}`)).statusCode).toBe(303);
    const late = await browser.get(`/checkout/${b}/return?reference=${refB}`);
    expect(late.statusCode).toBe(403);
    expect(late.body).toContain('already has a Colony plan');
    expect((await storage.billingHandoffs.get(refB))?.data.canceled_because).toBe('already_subscribed');
    expect((await storage.checkoutSessions.get(b))?.status).not.toBe('completed');
    expect(await storage.subscriptions.ofAccount(accountId)).toMatchObject({ plan: 'starter' });
    expect((await storage.orders.ofAccount(accountId)).length).toBe(1);
  });
});
