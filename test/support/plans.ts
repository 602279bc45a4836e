// An owner with a plan: signs up, has an agent check out the catalog items, and finishes paying on
// the hosted page with the built-in test processor (a 14-day trial, as a first purchase gets).
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { type InjectBrowser, signedUpOwner } from './browser.ts';
import { acp, planLine } from './checkout.ts';

/** Buys the items for the account signed in to `browser`, through ACP and the test processor. */
export function buyPlan(app: FastifyInstance, browser: InjectBrowser, ...items: string[]): Promise<string> {
  return buyPlanAs(app, browser, {}, ...items);
}

/** buyPlan with the agent's headers (an agent platform's key, say); answers the checkout session id. */
export async function buyPlanAs(
  app: FastifyInstance,
  browser: InjectBrowser,
  agent: Record<string, string>,
  ...items: string[]
): Promise<string> {
  const line_items = items.map((i) => planLine(i));
  const created = await acp(app, 'POST', '/checkout_sessions', { line_items }, agent);
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  expect((await acp(app, 'POST', `/checkout_sessions/${id}/complete`, {}, agent)).statusCode).toBe(200);
  await browser.get(`/checkout/${id}`);
  const pay = await browser.submit(`/checkout/${id}/pay`, {});
  expect(pay.statusCode, pay.body).toBe(303);
  const reference = new URL(String(pay.headers.location), 'http://x').searchParams.get('reference');
  const form = `/checkout/${id}/test-processor?reference=${reference}`;
  await browser.get(form);
  const paid = await browser.submit(form, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
  expect(paid.statusCode).toBe(303);
  expect((await browser.get(`/checkout/${id}/return?reference=${reference}`)).statusCode).toBe(303);
  return id;
}

/** A new account; with items, it has bought them (and is trialing). */
export async function ownerWithPlan(app: FastifyInstance, ...items: string[]) {
  const owner = await signedUpOwner(app, app.colony.storage.identity.accounts);
  if (items.length) await buyPlan(app, owner.browser, ...items);
  return owner;
}

/** An API key made on /account (post-redirect-get, shown once), bound to every office of the account unless `offices`. */
export async function accountKey(
  browser: InjectBrowser,
  scopes: string[],
  offices?: string[],
): Promise<string> {
  await browser.get('/account');
  const res = await browser.submit('/account/keys', {
    name: 'self-serve',
    scope: scopes,
    binding: offices ? 'selected' : 'all',
    office: offices ?? [],
  });
  expect(res.statusCode, res.body).toBe(303);
  const page = await browser.get(String(res.headers.location));
  const key = /<p class="secret" id="api-key">([^<]+)<\/p>/.exec(page.body)?.[1];
  if (!key) throw new Error(`no key on ${page.body}`);
  return key;
}
