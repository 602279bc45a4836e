// The account's plan page as a customer portal (issue 16, part 5) with the built-in test processor, on
// SQLite and PostgreSQL: an order's permalink lands on it (through sign-in, and never for another
// account), it shows the plan, trial, next charge and receipts, changes the plan through the billing
// page, and cancels at the end of the period with a confirmation step, reversibly until then.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import { InjectBrowser } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { textOf } from '../support/http-browser.ts';
import { startTestServerOn, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { sqliteTarget, storageTargets } from '../support/storage-targets.ts';

const DAY = 24 * 60 * 60 * 1000;
const PASSWORD = 'correct horse battery';
let owners = 0;

describe.each(storageTargets)('the plan page on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    s = await startTestServerOn(
      t,
      { COLONY_CHECKOUT_RATE_LIMIT: '10000' },
      { runJobs: false, now: () => clock.now },
    );
    storage = s.app.colony.storage;
  });
  afterAll(() => s.close());

  async function signedUp(): Promise<{ browser: InjectBrowser; email: string; accountId: string }> {
    const browser = new InjectBrowser(s.app);
    const email = `portal-${++owners}-${t.name}@example.com`;
    expect((await browser.signUp({ name: 'Ada <Owner>', email, password: PASSWORD })).statusCode).toBe(303);
    const account = await storage.identity.accounts.byEmail(email);
    if (!account) throw new Error('sign-up made no account');
    return { browser, email, accountId: account.id };
  }

  /** An agent's checkout, bought by the browser's account through the test processor (billing in GB). */
  async function bought(
    browser: InjectBrowser,
    ...items: string[]
  ): Promise<{ id: string; permalink: string }> {
    const created = await acp(s.app, 'POST', '/checkout_sessions', {
      line_items: items.map((i) => planLine(i)),
    });
    const id = created.json().id as string;
    expect((await acp(s.app, 'POST', `/checkout_sessions/${id}/complete`, {})).statusCode).toBe(200);
    await browser.get(`/checkout/${id}`);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    const reference = new URL(String(pay.headers.location), 'http://x').searchParams.get('reference');
    const form = `/checkout/${id}/test-processor?reference=${reference}`;
    await browser.get(form);
    await browser.submit(form, { name: 'Ada', country: 'GB', postal_code: 'N1 9GU' });
    expect((await browser.get(`/checkout/${id}/return?reference=${reference}`)).statusCode).toBe(303);
    const order = (await acp(s.app, 'GET', `/checkout_sessions/${id}`)).json().order;
    return { id: order.id as string, permalink: order.permalink_url as string };
  }

  const pathOf = (url: string) => new URL(url).pathname;

  it('gives each order a permalink that lands on the plan page, through sign-in and only for its owner', async () => {
    const { browser, email } = await signedUp();
    const order = await bought(browser, 'plan_pro_monthly');
    expect(order.id).toMatch(/^ord_/);
    expect(order.permalink).toBe(`${TEST_BASE_URL}/account/orders/${order.id}`);
    const path = pathOf(order.permalink);

    // A signed-out visitor is sent to sign in and comes back to the order.
    const visitor = new InjectBrowser(s.app);
    const away = await visitor.get(path);
    expect(away.statusCode).toBe(303);
    expect(away.headers.location).toBe(`/signin?return_to=${encodeURIComponent(path)}`);
    await visitor.get(String(away.headers.location));
    const signedIn = await visitor.submit('/signin', { email, password: PASSWORD, return_to: path });
    expect(signedIn.headers.location).toBe(path);
    const landed = await visitor.get(path);
    expect(landed.statusCode).toBe(200);
    expect(landed.body).toContain('id="order-focus"');
    expect(textOf(landed.body, 'portal-plan')).toBe('pro (monthly)');
    expect(landed.body).toContain(`id="order-${order.id}" class="focus"`);

    // Another account gets the same answer as for an order that does not exist, and nothing of the plan.
    const stranger = (await signedUp()).browser;
    const theirs = await stranger.get(path);
    const missing = await stranger.get('/account/orders/ord_nosuchorder');
    expect(theirs.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(theirs.body).toBe(missing.body);
    expect(theirs.body).not.toContain(order.id);
    expect(theirs.body).not.toContain('pro (monthly)');

    // Orders finished before orders had ids are named by their subscription: those land too, for the owner.
    const account = await storage.identity.accounts.byEmail(email);
    const legacy = `/account/orders/${(await storage.subscriptions.ofAccount(account?.id ?? ''))?.id}`;
    expect((await visitor.get(legacy)).statusCode).toBe(200);
    expect((await stranger.get(legacy)).statusCode).toBe(404);
  });

  it('shows the plan, trial end, next charge, payment method and receipts from the processor', async () => {
    const { browser, accountId } = await signedUp();
    const before = await browser.get('/account/plan');
    expect(before.statusCode).toBe(200);
    expect(before.body).toMatch(/id="portal-plan" class="muted">No plan yet\./);
    expect(before.body).toContain('id="no-invoices"');

    await bought(browser, 'plan_pro_monthly', 'addon_backups');
    const sub = await storage.subscriptions.ofAccount(accountId);
    const trialEnd = new Date(sub?.trialEnd ?? 0).toISOString().slice(0, 10);
    const page = await browser.get('/account/plan');
    expect(textOf(page.body, 'portal-plan')).toBe('pro (monthly)');
    expect(textOf(page.body, 'portal-status')).toBe(`free trial until ${trialEnd}`);
    expect(textOf(page.body, 'trial-end')).toBe(trialEnd);
    // $99 + $15 Backups, plus GB's 20 % test tax, first charged when the trial ends.
    expect(textOf(page.body, 'next-charge')).toBe(`$136.80 on ${trialEnd}`);
    expect(textOf(page.body, 'payment-method')).toBe('none needed: test mode, nothing is charged');
    expect(page.body).toMatch(/id="invoice-tp_[0-9a-f]+">/);
    expect(page.body).toContain('Free trial started (test mode)');
    // The change form starts from the current plan; the account page links here.
    expect(page.body).toContain('<option value="plan_pro_monthly" selected>');
    expect(page.body).toMatch(/name="backups" value="yes" checked/);
    expect((await browser.get('/account')).body).toContain('id="manage-plan" href="/account/plan"');
  });

  it('changes the plan through the billing page, which says what changes before anything is confirmed', async () => {
    const { browser, accountId } = await signedUp();
    await bought(browser, 'plan_starter_monthly');
    await browser.get('/account/plan');
    const forged = await browser.submit('/account/plan/change', {
      item: 'plan_team_annual',
      _csrf: 'x'.repeat(32),
    });
    expect(forged.statusCode).toBe(403);
    const bad = await browser.submit('/account/plan/change', { item: 'plan_platinum_forever' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'notice')).toBe('Choose one of the plans.');

    // Backups is billed monthly: the form says so instead of opening a checkout nobody could buy.
    const mixed = await browser.submit('/account/plan/change', { item: 'plan_team_annual', backups: 'yes' });
    expect(mixed.statusCode).toBe(400);
    expect(textOf(mixed.body, 'notice')).toMatch(/^Backups is billed every month/);

    const change = await browser.submit('/account/plan/change', { item: 'plan_team_annual' });
    expect(change.statusCode).toBe(303);
    const checkoutPath = String(change.headers.location);
    expect(checkoutPath).toMatch(/^\/checkout\/cs_/);
    const review = await browser.get(checkoutPath);
    expect(textOf(review.body, 'change-from')).toBe('starter (monthly)');
    expect(textOf(review.body, 'change-to')).toBe('team (annual)');
    // Nothing changed until the owner confirms there.
    expect((await storage.subscriptions.ofAccount(accountId))?.plan).toBe('starter');
    expect((await browser.submit(`${checkoutPath}/pay`, {})).statusCode).toBe(303);
    expect(await storage.subscriptions.ofAccount(accountId)).toMatchObject({
      plan: 'team',
      interval: 'year',
    });
    expect(textOf((await browser.get('/account/plan')).body, 'portal-plan')).toBe('team (annual)');
  });

  it('cancels at the end of the period after a confirmation, reversibly until then', async () => {
    const { browser, accountId } = await signedUp();
    await bought(browser, 'plan_pro_monthly');
    const sub = await storage.subscriptions.ofAccount(accountId);
    if (!sub?.trialEnd) throw new Error('no trial');
    const trialEnd = new Date(sub.trialEnd).toISOString().slice(0, 10);

    const confirm = await browser.get('/account/plan/cancel');
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body, 'cancel-ends')).toBe(trialEnd);

    // Refused without the form's token, and for a subscription that is not the poster's.
    expect(
      (await browser.submit('/account/plan/cancel', { subscription: sub.id, _csrf: '' })).statusCode,
    ).toBe(403);
    const stranger = (await signedUp()).browser;
    await stranger.get('/account/plan');
    expect((await stranger.submit('/account/plan/cancel', { subscription: sub.id })).statusCode).toBe(404);
    expect((await stranger.submit('/account/plan/resume', { subscription: sub.id })).statusCode).toBe(404);
    expect((await browser.get('/account/plan')).body).not.toContain('id="ends-on"');

    const done = await browser.submit('/account/plan/cancel', { subscription: sub.id });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/account/plan');
    const pending = await browser.get('/account/plan');
    expect(pending.body).toContain(`id="ends-on">${trialEnd} `);
    expect(textOf(pending.body, 'next-charge')).toBe('none: nothing more will be charged');
    expect(textOf(pending.body, 'portal-status')).toBe(`free trial until ${trialEnd}`);
    expect(pending.body).toContain('id="resume"');
    // A second confirm keeps the date; the confirmation page is not offered again.
    expect((await browser.submit('/account/plan/cancel', { subscription: sub.id })).statusCode).toBe(303);
    expect((await browser.get('/account/plan/cancel')).headers.location).toBe('/account/plan');

    // Taken back: the plan renews again.
    expect((await browser.submit('/account/plan/resume', { subscription: sub.id })).statusCode).toBe(303);
    const kept = await browser.get('/account/plan');
    expect(kept.body).not.toContain('id="ends-on"');
    expect(textOf(kept.body, 'next-charge')).toMatch(new RegExp(`^\\$118\\.80 on ${trialEnd}$`));
    expect((await browser.submit('/account/plan/resume', { subscription: sub.id })).statusCode).toBe(409);

    // Canceled again and past the trial's end: the plan has ended and Colony's record says so.
    await browser.submit('/account/plan/cancel', { subscription: sub.id });
    clock.now += 7 * DAY;
    await browser.get('/account/plan');
    clock.now = sub.trialEnd + 1;
    const ended = await browser.get('/account/plan');
    expect(textOf(ended.body, 'portal-status')).toBe('canceled');
    expect((await storage.subscriptions.ofAccount(accountId))?.status).toBe('canceled');
    expect(ended.body).not.toContain('id="resume"');
    expect((await browser.submit('/account/plan/resume', { subscription: sub.id })).statusCode).toBe(404);
  });

  it('sends the hosted-portal form back to the plan page when the processor has no portal', async () => {
    const { browser } = await signedUp();
    await bought(browser, 'plan_starter_monthly');
    await browser.get('/account/plan');
    const res = await browser.submit('/account/plan/portal', { flow: 'cancel' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/account/plan');
  });
});

describe('plan changes started from the plan page', () => {
  it('count against the checkout budget, per account', async () => {
    const s = await startTestServerOn(sqliteTarget, {
      COLONY_CHECKOUT_RATE_LIMIT: '2',
    });
    try {
      const browser = new InjectBrowser(s.app);
      await browser.signUp({ name: 'Quick', email: 'quick@example.com', password: PASSWORD });
      await browser.get('/account/plan');
      for (let i = 0; i < 2; i++)
        expect((await browser.submit('/account/plan/change', { item: 'plan_pro_monthly' })).statusCode).toBe(
          303,
        );
      const refused = await browser.submit('/account/plan/change', { item: 'plan_pro_monthly' });
      expect(refused.statusCode).toBe(429);
      expect(textOf(refused.body, 'notice')).toMatch(/^Too many plan changes started\. Wait \d+ seconds/);
    } finally {
      await s.close();
    }
  });
});
