// The plan section of /account: the account's one subscription and every order it made, each order
// id linking to its permalink, and the way to the plan page. Pure rendering beside the one loader the
// page calls.

import type { Storage } from '../../app-storage.ts';
import { escapeHtml } from '../../shared/html.ts';
import { isoDate } from '../checkout-terms.ts';
import type { OrderRecord } from '../orders-repo.ts';
import type { SubscriptionRecord } from '../subscriptions-repo.ts';

/** A plan as owners read it: "pro (annual)", escaped for HTML. */
export const planName = (p: { plan: string; interval: string }) =>
  `${escapeHtml(p.plan)} (${p.interval === 'year' ? 'annual' : 'monthly'})`;

/** Where an order id is read for good: its permalink, as the agent was given it. */
export const orderPath = (orderId: string) => `/account/orders/${encodeURIComponent(orderId)}`;

/** How the subscription stands, in words (not escaped). */
export function standing(s: Pick<SubscriptionRecord, 'status' | 'trialEnd'>): string {
  switch (s.status) {
    case 'trialing':
      return s.trialEnd ? `free trial until ${isoDate(s.trialEnd)}` : 'free trial';
    case 'active':
      return 'active';
    case 'past_due':
      return 'payment past due: update the payment method at the processor';
    case 'unpaid':
      return 'unpaid';
    case 'paused':
      return 'paused';
    case 'canceled':
      return 'canceled';
  }
}

function orderLine(o: OrderRecord): string {
  const what = o.from ? `Changed from ${planName(o.from)} to ${planName(o)}` : `Bought ${planName(o)}`;
  return `<tr><td><a href="${orderPath(o.id)}"><code>${escapeHtml(o.id)}</code></a></td><td>${isoDate(o.createdAt)}</td><td>${what}</td></tr>`;
}

export function renderPlanSection(s: SubscriptionRecord | undefined, orders: readonly OrderRecord[]): string {
  const plan = s
    ? `<p id="plan">${planName(s)}: <span id="plan-status">${escapeHtml(standing(s))}</span>.${s.testMode ? ' <span class="muted">(test mode: nothing is charged)</span>' : ''}</p>`
    : '<p id="plan" class="muted">No plan yet. An agent can buy one for you (ACP or UCP checkout); see the prices at <a href="/api/v1/pricing">/api/v1/pricing</a>.</p>';
  const table =
    orders.length === 0
      ? ''
      : `<table id="orders"><thead><tr><th>Order</th><th>Date</th><th>What</th></tr></thead><tbody>
${orders.map(orderLine).join('\n')}
</tbody></table>`;
  const manage = `<p><a id="manage-plan" href="/account/plan">${s ? 'Manage your plan: next charge, payment method, invoices, change or cancel' : 'Choose a plan'}</a></p>`;
  return `<h2>Plan</h2>\n${plan}\n${manage}\n${table}`;
}

/** What /account shows of an account's plan, read from the commerce tables. */
export function accountPlanSection(storage: Pick<Storage, 'subscriptions' | 'orders'>) {
  return async (accountId: string): Promise<string> => {
    const [subscription, orders] = await Promise.all([
      storage.subscriptions.ofAccount(accountId),
      storage.orders.ofAccount(accountId),
    ]);
    return renderPlanSection(subscription, orders);
  };
}
