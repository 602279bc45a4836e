// Pure: the hosted billing page at continue_url: what is being bought, the free trial and the first
// charge date, then sign in or sign up, then the hand-off to the payment processor.
import { escapeHtml, page } from '../../shared/html.ts';
import type { CheckoutSession } from '../checkout-session.ts';
import { dollars, firstChargeAt, isoDate } from '../checkout-terms.ts';
import type { OrderRecord } from '../orders-repo.ts';
import { type SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';
import { planName } from './account-plan.ts';

export interface BillingView {
  session: CheckoutSession;
  account: { name: string; email: string } | null;
  csrf: string;
  now: number;
  /** Nothing can be charged: the test processor or Stripe in test mode (always so in a sandbox). */
  testMode: boolean;
  sandbox: boolean;
  /** The signed-in account's subscription (or, once finished, the buyer's). */
  subscription: SubscriptionRecord | undefined;
  /** The order this checkout made, once finished. */
  order?: OrderRecord | undefined;
  /** Whether the signed-in account may still have a free trial (one per account). */
  trialAvailable: boolean;
  /** A message from a failed or unfinished hand-off. */
  notice?: string;
}

const styles = `<style>
  table.items { border-collapse: collapse; width: 100%; } .items td, .items th { border-bottom: 1px solid #e8e4f6; padding: .4rem; text-align: left; }
  .items td.amount, .items th.amount { text-align: right; } .total td { font-weight: 600; }
  .panel { border: 1px solid #d9d4ea; border-radius: .5rem; padding: 1rem 1.25rem; margin: 1rem 0; }
  .actions a, .actions button { display: inline-block; margin: .5rem .5rem 0 0; padding: .5rem 1rem; border-radius: .3rem; font: inherit; text-decoration: none; border: 0; cursor: pointer; }
  .primary { background: #4b2db3; color: #fff; } .secondary { background: #e8e4f6; color: #1d1b26; }
  .notice { border: 1px solid #a3142c; border-radius: .4rem; padding: .5rem 1rem; color: #a3142c; }
</style>`;

const per = (interval: string) => (interval === 'year' ? 'year' : 'month');

function itemsTable(s: CheckoutSession): string {
  const rows = s.cart.lines
    .map(
      (
        l,
      ) => `<tr><td>${escapeHtml(l.name)}${l.quantity > 1 ? ` × ${l.quantity}` : ''}<br><small class="muted">${escapeHtml(l.description)}</small></td>
<td class="amount">${dollars(l.amount)} / ${per(l.interval)}</td></tr>`,
    )
    .join('\n');
  const every = s.cart.interval ? ` / ${per(s.cart.interval)}` : '';
  return `<table class="items" id="items"><thead><tr><th>Item</th><th class="amount">Price</th></tr></thead><tbody>
${rows}
<tr class="total"><td>Total after the trial (plus tax)</td><td class="amount" id="total">${dollars(s.cart.total)}${every}</td></tr>
</tbody></table>`;
}

/** An account with a live plan changes it: said before the owner confirms, as Stripe's portal does. */
function changePanel(v: BillingView, current: SubscriptionRecord): string {
  const plan = v.session.cart.lines.find((l) => l.kind === 'plan');
  const to = plan ? planName({ plan: plan.plan ?? '', interval: plan.interval }) : 'the items above';
  const trial =
    current.status === 'trialing' && current.trialEnd
      ? ` Your free trial continues until ${isoDate(current.trialEnd)}; the new price applies from then.`
      : ' The payment processor prorates: the unused part of your current plan is credited and the rest of this period is charged at the new price, on your next invoice.';
  return `<div class="panel" id="change"><p><strong>This changes your plan</strong> from <span id="change-from">${planName(current)}</span> to <span id="change-to">${to}</span>.${trial}</p>
<p class="muted">Your account keeps one subscription; nothing else is bought.</p></div>`;
}

function noTrialPanel(v: BillingView): string {
  const { cart } = v.session;
  return `<div class="panel" id="no-trial"><p><strong>No free trial:</strong> this account has had its trial. The first charge of ${dollars(cart.total)} plus tax is today, then every ${cart.interval === 'year' ? 'year' : 'month'} until you cancel.</p></div>`;
}

function termsPanel(v: BillingView): string {
  if (v.account && SubscriptionsRepo.live(v.subscription)) return changePanel(v, v.subscription);
  if (v.account && !v.trialAvailable) return noTrialPanel(v);
  return trialPanel(v);
}

function trialPanel(v: BillingView): string {
  const { cart } = v.session;
  const first = isoDate(firstChargeAt(v.now, cart.trialDays));
  return `<div class="panel" id="trial"><p><strong>${cart.trialDays}-day free trial.</strong> Nothing is charged today.
If you start now, the first charge of ${dollars(cart.total)} plus tax is on <strong id="first-charge">${first}</strong>,
then every ${cart.interval === 'year' ? 'year' : 'month'} until you cancel.</p>
<p class="muted">Tax is assessed by the payment processor from the billing address you enter there.</p></div>`;
}

function accountPanel(v: BillingView): string {
  const here = `/checkout/${encodeURIComponent(v.session.id)}`;
  if (!v.account) {
    const back = encodeURIComponent(here);
    return `<div class="panel" id="account"><p>Sign in to the Colony account this plan is for, or create one.</p>
<p class="actions"><a class="primary" id="signin" href="/signin?return_to=${back}">Sign in</a>
<a class="secondary" id="signup" href="/signup?return_to=${back}">Create an account</a></p></div>`;
  }
  const mode = v.testMode ? ' <span id="test-mode">(test mode: nothing will be charged)</span>' : '';
  return `<div class="panel" id="account"><p>Signed in as <strong id="account-name">${escapeHtml(v.account.name)}</strong> (${escapeHtml(v.account.email)}).</p>
<form method="post" action="${here}/pay"><input type="hidden" name="_csrf" value="${escapeHtml(v.csrf)}">
<p class="actions"><button class="primary" id="pay" type="submit">${SubscriptionsRepo.live(v.subscription) ? 'Change plan' : 'Continue to payment'}</button>${mode}</p></form></div>`;
}

function finishedPanel(v: BillingView): string {
  const sub = v.subscription;
  const order = v.order;
  const trial = order?.trialEnd
    ? ` Your free trial ends on <strong id="trial-end">${isoDate(order.trialEnd)}</strong>.`
    : '';
  const what = order?.from
    ? `Your plan changed from ${planName(order.from)} to ${planName(order)}.`
    : `Your ${escapeHtml(order?.plan ?? sub?.plan ?? '')} plan is active, billed every ${order ? per(order.interval) : 'period'}.`;
  const id = order
    ? ` <span class="muted">Order <code id="order-id">${escapeHtml(order.id)}</code>.</span>`
    : '';
  return `<div class="panel" id="finished"><h2>You're all set</h2>
<p>${what}${trial}${id}</p>
<p><a href="/account">Go to your account</a></p></div>`;
}

function closedPanel(s: CheckoutSession): string {
  const why =
    s.status === 'expired'
      ? 'This checkout expired (checkouts last six hours).'
      : 'This checkout was canceled.';
  return `<div class="panel" id="closed"><p>${why} Ask your agent to start a new one, or see the plans on <a href="/signup">the sign-up page</a>.</p></div>`;
}

function problemsPanel(s: CheckoutSession): string {
  const items = s.cart.problems.map((p) => `<li>${escapeHtml(p.message)}</li>`).join('');
  return `<div class="panel notice" id="problems"><p>This checkout cannot be bought as it stands:</p><ul>${items}</ul></div>`;
}

function nextStep(v: BillingView): string {
  const s = v.session;
  if (s.status === 'completed') return finishedPanel(v);
  if (s.status === 'canceled' || s.status === 'expired') return closedPanel(s);
  if (s.cart.problems.length > 0) return problemsPanel(s);
  return `${termsPanel(v)}\n${accountPanel(v)}`;
}

export function renderBillingPage(v: BillingView): string {
  const sandbox = v.sandbox
    ? '<p id="sandbox"><strong>Sandbox:</strong> data here is disposable and nothing is ever charged.</p>'
    : '';
  const notice = v.notice ? `<p class="notice" role="alert" id="notice">${escapeHtml(v.notice)}</p>` : '';
  return page(
    'Finish your Colony purchase',
    `${styles}
<h1>Finish your Colony purchase</h1>
${sandbox}${notice}
<p class="muted">An AI agent prepared this checkout for you. Agents never pay on your behalf: you review it and finish here.</p>
${itemsTable(v.session)}
${nextStep(v)}
<p class="muted"><a href="/legal/terms">Terms of use</a> · <a href="/legal/privacy">Privacy policy</a></p>`,
  );
}

export function renderMissingCheckout(): string {
  return page(
    'Checkout not found',
    '<h1>Checkout not found</h1><p>This link does not point to a checkout. Ask your agent for a new one.</p>',
  );
}
