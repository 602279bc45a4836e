// The hosted billing page in headless Debian Chromium (playwright-core): an agent creates and completes
// a checkout over ACP, the owner opens continue_url, signs up, pays through the built-in test processor
// and the session becomes completed with the account's subscription recorded.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserTest, startBrowserTest } from '../support/chromium.ts';
import type { TestServer } from '../support/server.ts';
import { subscriptionOf } from '../support/subscriptions.ts';

const DAY = 24 * 60 * 60 * 1000;

let t: BrowserTest;
let s: TestServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startBrowserTest();
  ({ server: s, browser, base } = t);
});
afterAll(() => t?.close());

const agent = (method: string, path: string, body?: unknown) => t.agent(method, path, body);

describe('hosted billing page', () => {
  it('takes the owner from continue_url through sign-up and the test processor to a recorded subscription', async () => {
    const created = await agent('POST', '/checkout_sessions', {
      line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }],
      buyer: { email: 'owner@example.com', first_name: 'Grace' },
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const completed = await agent('POST', `/checkout_sessions/${id}/complete`, {});
    expect(completed.body.status).toBe('requires_escalation');
    const continueUrl = String(completed.body.continue_url);

    const page = await browser.newPage();
    await page.goto(continueUrl);
    expect(await page.locator('h1').innerText()).toBe('Finish your Colony purchase');
    expect(await page.locator('#items').innerText()).toContain('Pro (monthly)');
    expect(await page.locator('#items').innerText()).toContain('Backups');
    expect(await page.locator('#total').innerText()).toBe('$114.00 / month');
    expect(await page.locator('#sandbox').count()).toBe(1);
    const firstCharge = await page.locator('#first-charge').innerText();
    expect(Date.parse(firstCharge) - Date.now()).toBeGreaterThan(13 * DAY);

    await page.click('#signup');
    await page.fill('#f-name', 'Grace Hopper');
    await page.fill('#f-email', 'grace@example.com');
    await page.fill('#f-password', 'correct horse battery');
    await page.click('button[type=submit]');
    await page.waitForURL(continueUrl);
    expect(await page.locator('#account-name').innerText()).toBe('Grace Hopper');
    expect(await page.locator('#test-mode').count()).toBe(1);

    await page.click('#pay');
    await page.waitForURL(/\/test-processor\?reference=tp_/);
    await page.fill('#billing-name', 'Grace Hopper');
    await page.selectOption('#billing-country', 'DE');
    await page.fill('#billing-postal', '10115');
    await page.click('#start-trial');
    await page.waitForURL(continueUrl);
    expect(await page.locator('#finished h2').innerText()).toBe("You're all set");
    const trialEnd = await page.locator('#trial-end').innerText();
    await page.screenshot({ path: `${s.dataDir}/billing-finished.png` });
    await page.close();

    const after = await agent('GET', `/checkout_sessions/${id}`);
    expect(after.body.status).toBe('completed');
    const order = after.body.order as { id: string };
    expect(after.body.order).toMatchObject({
      checkout_session_id: id,
      permalink_url: `${base}/account/orders/${order.id}`,
    });

    const account = await s.app.colony.storage.identity.accounts.byEmail('grace@example.com');
    if (!account) throw new Error('sign-up did not create the account');
    const sub = await subscriptionOf(s.app, account.id);
    expect(sub).toMatchObject({
      plan: 'pro',
      interval: 'month',
      status: 'trialing',
      processor: 'test',
      testMode: true,
      checkoutSessionId: id,
    });
    expect(sub?.items.map((i) => i.itemId)).toEqual(['plan_pro_monthly', 'addon_backups']);
    expect(new Date(sub?.trialEnd ?? 0).toISOString().slice(0, 10)).toBe(trialEnd);
    expect(sub?.trialEnd ?? 0).toBeGreaterThan(Date.now() + 13 * DAY);
    const handoffs = await s.app.colony.storage.billingHandoffs.get(sub?.processorRef ?? '');
    expect(handoffs?.data).toMatchObject({ billing_country: 'DE', tax_rate_percent: 19, amount_tax: 2166 });
  });

  it('asks a signed-out visitor to sign in before paying, and shows closed sessions as closed', async () => {
    const created = await agent('POST', '/checkout_sessions', {
      line_items: [{ item: { id: 'plan_starter_annual' } }],
    });
    const id = String(created.body.id);
    const page = await browser.newPage();
    await page.goto(`${base}/checkout/${id}`);
    expect(await page.locator('#signin').getAttribute('href')).toBe(
      `/signin?return_to=${encodeURIComponent(`/checkout/${id}`)}`,
    );
    expect(await page.locator('#pay').count()).toBe(0);
    await agent('POST', `/checkout_sessions/${id}/cancel`);
    await page.reload();
    expect(await page.locator('#closed').innerText()).toContain('canceled');
    await page.goto(`${base}/checkout/cs_does_not_exist`);
    expect(await page.locator('h1').innerText()).toBe('Checkout not found');
    await page.close();
  });
});
