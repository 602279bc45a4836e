// Pure: what an owner can do from the plan page: change the plan (through the billing page's own
// change flow), and cancel, at the processor's hosted portal or, without one, Colony's own cancel with
// a confirmation step; and the confirmation page itself.
import { escapeHtml, page } from '../../shared/html.ts';
import { isoDate } from '../checkout-terms.ts';
import type { SubscriptionDescription } from '../processors/subscription-description.ts';
import type { SubscriptionRecord } from '../subscriptions-repo.ts';
import { planName } from './account-plan.ts';
import { portalStyles } from './portal-styles.ts';

/** A plan the owner can pick: a catalog plan item. */
export interface PlanChoice {
  itemId: string;
  plan: string;
  interval: 'month' | 'year';
}

export const BACKUPS_ITEM = 'addon_backups';

export interface ActionsView {
  subscription: SubscriptionRecord | undefined;
  description: SubscriptionDescription | undefined;
  live: boolean;
  hostedPortal: boolean;
  plans: readonly PlanChoice[];
  csrf: string;
}

const csrfField = (csrf: string) => `<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">`;

function changeForm(v: ActionsView): string {
  const s = v.subscription;
  const current = v.live
    ? s?.items.find((i) => v.plans.some((p) => p.itemId === i.itemId))?.itemId
    : undefined;
  const options = v.plans
    .map(
      (p) =>
        `<option value="${escapeHtml(p.itemId)}"${p.itemId === current ? ' selected' : ''}>${planName(p)}</option>`,
    )
    .join('');
  const backups = v.live && s?.items.some((i) => i.itemId === BACKUPS_ITEM) ? ' checked' : '';
  const verb = v.live ? 'Change plan' : 'Choose a plan';
  return `<form method="post" action="/account/plan/change" id="change-plan">${csrfField(v.csrf)}
<label for="change-item">${verb}</label><select id="change-item" name="item">${options}</select>
<label><input type="checkbox" name="backups" value="yes"${backups}> Backups add-on (with a monthly plan)</label>
<button type="submit" id="review-change">Review on the billing page</button>
<p class="muted">The billing page shows what changes and when before anything is confirmed.</p></form>`;
}

function hostedButtons(v: ActionsView): string {
  const form = (flow: string, id: string, label: string, cls: string) =>
    `<form method="post" action="/account/plan/portal">${csrfField(v.csrf)}<input type="hidden" name="flow" value="${flow}"><button class="${cls}" type="submit" id="${id}">${label}</button></form>`;
  return `${form('manage', 'manage-billing', 'Payment method and billing details', 'secondary')}
${v.live && !v.description?.cancelAt ? form('cancel', 'cancel', 'Cancel plan', 'secondary') : ''}`;
}

function ownCancel(v: ActionsView): string {
  const s = v.subscription;
  if (!s || !v.live) return '';
  if (v.description?.cancelAt)
    return `<form method="post" action="/account/plan/resume">${csrfField(v.csrf)}<input type="hidden" name="subscription" value="${escapeHtml(s.id)}"><button type="submit" id="resume">Keep my plan</button></form>`;
  return '<a class="button secondary" id="cancel" href="/account/plan/cancel">Cancel plan</a>';
}

export function portalActions(v: ActionsView): string {
  return `<section class="panel" id="plan-actions"><h2>Change or cancel</h2>
${changeForm(v)}
<div class="actions">${v.hostedPortal ? hostedButtons(v) : ownCancel(v)}</div></section>`;
}

/** The confirmation step of Colony's own cancel: when the plan ends, and that it can be taken back. */
export function renderCancelPage(v: {
  subscription: SubscriptionRecord;
  endsAt: number;
  csrf: string;
}): string {
  const s = v.subscription;
  return page(
    'Cancel your Colony plan',
    `${portalStyles}
<h1>Cancel your plan?</h1>
<p id="cancel-terms">Your ${planName(s)} plan stays as it is until <strong id="cancel-ends">${isoDate(v.endsAt)}</strong>, the end of the ${s.status === 'trialing' ? 'free trial' : 'period'}, and then ends: nothing more is charged. Until then you can keep it with one click on your plan page.</p>
<div class="actions"><form method="post" action="/account/plan/cancel">${csrfField(v.csrf)}<input type="hidden" name="subscription" value="${escapeHtml(s.id)}"><button type="submit" id="confirm-cancel">Cancel at the end of the period</button></form>
<a class="button secondary" id="keep" href="/account/plan">Keep my plan</a></div>`,
  );
}
