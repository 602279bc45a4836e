// Pure: the account's plan page (/account/plan, and every order's permalink): the plan as the payment
// processor holds it, usage this period when given, change and cancel, receipts, invoices and orders.
import { escapeHtml, page } from '../../shared/html.ts';
import { isoDate } from '../checkout-terms.ts';
import type { OrderRecord } from '../orders-repo.ts';
import type { SubscriptionDescription } from '../processors/subscription-description.ts';
import { type SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';
import { planName, standing } from './account-plan.ts';
import { type PlanChoice, portalActions } from './portal-actions.ts';
import { invoicesSection, money, ordersSection } from './portal-history.ts';
import { portalStyles } from './portal-styles.ts';

export interface PortalView {
  subscription: SubscriptionRecord | undefined;
  /** Newest first. */
  orders: readonly OrderRecord[];
  /** What the processor says; undefined without a subscription or while it cannot be reached. */
  description: SubscriptionDescription | undefined;
  processorDown: boolean;
  /** Stripe: payment details and cancelling are the processor's hosted portal. */
  hostedPortal: boolean;
  testMode: boolean;
  plans: readonly PlanChoice[];
  csrf: string;
  /** The order whose permalink was followed. */
  focus?: OrderRecord;
  /** Usage this period, rendered by the metering domain (HTML), placed as it comes. */
  usageSection?: string;
  notice?: string;
}

function paymentMethod(v: PortalView): string {
  const pm = v.description?.paymentMethod;
  if (pm) return `${escapeHtml(pm.brand)}${pm.last4 ? ` •••• ${escapeHtml(pm.last4)}` : ''}`;
  if (v.testMode && !v.hostedPortal) return 'none needed: test mode, nothing is charged';
  return v.processorDown ? 'unknown (the processor cannot be reached)' : 'none on file';
}

function nextCharge(d: SubscriptionDescription | undefined, down: boolean): string {
  if (!d) return down ? 'unknown (the processor cannot be reached)' : '—';
  if (!d.nextCharge) return 'none: nothing more will be charged';
  return `${money(d.nextCharge.amount, d.nextCharge.currency)} on ${isoDate(d.nextCharge.at)}`;
}

function summary(v: PortalView, s: SubscriptionRecord): string {
  const d = v.description;
  // The processor is the authority on standing; Colony's record stands in while it cannot be reached.
  const now = { status: d?.status ?? s.status, trialEnd: d ? d.trialEnd : s.trialEnd };
  const trial =
    now.status === 'trialing' && now.trialEnd
      ? `<dt>Trial ends</dt><dd id="trial-end">${isoDate(now.trialEnd)}</dd>`
      : '';
  const ends = d?.cancelAt
    ? `<dt>Ends on</dt><dd id="ends-on">${isoDate(d.cancelAt)} <span class="muted">(canceled at the end of the period)</span></dd>`
    : '';
  return `<dl class="summary" id="plan-summary">
<dt>Plan</dt><dd id="portal-plan">${planName(s)}</dd>
<dt>Status</dt><dd id="portal-status">${escapeHtml(standing(now))}</dd>
${trial}${ends}
<dt>Next charge</dt><dd id="next-charge">${nextCharge(d, v.processorDown)}</dd>
<dt>Payment method</dt><dd id="payment-method">${paymentMethod(v)}</dd>
</dl>`;
}

function focusBanner(o: OrderRecord | undefined): string {
  if (!o) return '';
  const what = o.from
    ? `changed your plan from ${planName(o.from)} to ${planName(o)}`
    : `bought ${planName(o)}`;
  return `<p class="notice" id="order-focus">Order <code>${escapeHtml(o.id)}</code> ${what} on ${isoDate(o.createdAt)}.</p>`;
}

function planPanel(v: PortalView): string {
  const s = v.subscription;
  if (!s)
    return '<p id="portal-plan" class="muted">No plan yet. An agent can buy one for you, or choose one below.</p>';
  const down = v.processorDown
    ? '<p class="notice" role="alert" id="processor-down">The payment processor cannot be reached right now: this is Colony\'s own record of your plan.</p>'
    : '';
  return `${down}${summary(v, s)}${s.testMode ? '<p class="muted" id="test-mode">Test mode: nothing is ever charged.</p>' : ''}`;
}

export function renderPortalPage(v: PortalView): string {
  const live = SubscriptionsRepo.live(v.subscription) && v.description?.status !== 'canceled';
  const notice = v.notice ? `<p class="notice" role="status" id="notice">${escapeHtml(v.notice)}</p>` : '';
  return page(
    'Your Colony plan',
    `${portalStyles}
<p><a href="/account">← Your account</a></p>
<h1>Your plan</h1>
${notice}${focusBanner(v.focus)}
<section class="panel" id="plan-panel">${planPanel(v)}</section>
${v.usageSection ?? ''}
${portalActions({ ...v, live })}
${invoicesSection(v.subscription ? v.description?.invoices : [], v.testMode && !v.hostedPortal)}
${ordersSection(v.orders, v.focus?.id)}`,
  );
}

/** The answer for an order that is not there or not this account's: the same either way. */
export function renderOrderNotFound(): string {
  return page(
    'Order not found',
    '<h1>Order not found</h1><p>No order of your account has this id. Your plan and orders are on <a href="/account/plan">your plan page</a>.</p>',
  );
}

/** The answer to a cancel or resume naming a subscription that is not the signed-in account's own. */
export function renderPlanNotFound(): string {
  return page(
    'Plan not found',
    '<h1>Plan not found</h1><p>This form names a plan your account does not hold. Your plan is on <a href="/account/plan">your plan page</a>.</p>',
  );
}
