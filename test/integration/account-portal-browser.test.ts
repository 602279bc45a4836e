// The plan page on a 375 px phone in headless Debian Chromium (playwright-core): the owner follows an
// order's permalink signed out, signs in and lands on it; nothing scrolls sideways on the plan page or
// the cancel confirmation, every action is on screen and works: change plan, cancel, keep the plan.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserTest, startBrowserTest } from '../support/chromium.ts';

const PHONE = { width: 375, height: 740 };

let t: BrowserTest;
beforeAll(async () => {
  t = await startBrowserTest();
});
afterAll(() => t?.close());

const agent = async (method: string, path: string, body?: unknown) =>
  (await t.agent(method, path, body)).body;

/** The page is no wider than the phone, and each of these controls lies fully within its width. */
async function fitsThePhone(page: Page, controls: string[]): Promise<void> {
  // A string, as the project's types have no DOM: run in the page, it compares the two widths.
  const widths = (await page.evaluate(
    '({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })',
  )) as { scroll: number; inner: number };
  expect(widths.scroll, 'the page scrolls sideways').toBeLessThanOrEqual(widths.inner);
  for (const selector of controls) {
    const box = await page.locator(selector).boundingBox();
    expect(box, `${selector} is not shown`).not.toBeNull();
    expect(box?.x ?? -1, selector).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0), selector).toBeLessThanOrEqual(PHONE.width);
  }
}

describe('the plan page at 375 px', () => {
  it('lands from the permalink after sign-in and keeps every action reachable without sideways scrolling', async () => {
    const { browser, base, server } = t;
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();

    // Bought through the billing page and the test processor, on the phone.
    const created = await agent('POST', '/checkout_sessions', {
      line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }],
    });
    const id = String(created.id);
    const continueUrl = String((await agent('POST', `/checkout_sessions/${id}/complete`, {})).continue_url);
    await page.goto(continueUrl);
    await page.click('#signup');
    await page.fill('#f-name', 'Katherine Johnson');
    await page.fill('#f-email', 'katherine@example.com');
    await page.fill('#f-password', 'correct horse battery');
    await page.click('button[type=submit]');
    await page.waitForURL(continueUrl);
    await page.click('#pay');
    await page.waitForURL(/\/test-processor\?reference=tp_/);
    await page.fill('#billing-name', 'Katherine Johnson');
    await page.fill('#billing-postal', '10001');
    await page.click('#start-trial');
    await page.waitForURL(continueUrl);
    const order = (await agent('GET', `/checkout_sessions/${id}`)).order as {
      id: string;
      permalink_url: string;
    };
    expect(order.permalink_url).toBe(`${base}/account/orders/${order.id}`);

    // Signed out, the permalink asks for sign-in and comes back to the order.
    await context.clearCookies();
    await page.goto(order.permalink_url);
    await page.waitForURL(/\/signin\?return_to=/);
    await page.fill('#f-email', 'katherine@example.com');
    await page.fill('#f-password', 'correct horse battery');
    await page.click('button[type=submit]');
    await page.waitForURL(order.permalink_url);
    expect(await page.locator('#order-focus').innerText()).toContain(order.id);
    expect(await page.locator('#portal-plan').innerText()).toBe('pro (monthly)');
    await fitsThePhone(page, ['#change-item', '#review-change', '#cancel', `#order-${order.id} a`]);
    await page.screenshot({ path: `${server.dataDir}/plan-page-375.png`, fullPage: true });

    // Cancel: a confirmation that fits too, then the end date and the way back.
    await page.click('#cancel');
    await page.waitForURL(`${base}/account/plan/cancel`);
    await fitsThePhone(page, ['#confirm-cancel', '#keep']);
    const endsOn = await page.locator('#cancel-ends').innerText();
    await page.click('#confirm-cancel');
    await page.waitForURL(`${base}/account/plan`);
    expect(await page.locator('#ends-on').innerText()).toContain(endsOn);
    await fitsThePhone(page, ['#resume', '#review-change']);
    await page.click('#resume');
    await page.waitForURL(`${base}/account/plan`);
    expect(await page.locator('#ends-on').count()).toBe(0);

    // Change plan: the billing page's change flow, on the phone as well.
    await page.selectOption('#change-item', 'plan_team_monthly');
    await page.click('#review-change');
    await page.waitForURL(/\/checkout\/cs_/);
    expect(await page.locator('#change-to').innerText()).toBe('team (monthly)');
    await context.close();
  });
});
