// Pure: the policy pages checkout responses link to (ACP `links`, UCP `links`).
import { escapeHtml, page } from '../shared/html.ts';

export function renderTermsPage(baseUrl: string, trialDays: number): string {
  return page(
    'Colony terms of use',
    `<h1>Terms of use</h1>
<p>These terms cover purchases of Colony plans and add-ons made through this deployment (${escapeHtml(baseUrl)}).</p>
<ul>
  <li>Every plan starts with a ${trialDays}-day free trial. Nothing is charged until the trial ends.</li>
  <li>After the trial the plan, and any add-on, renews every billing period at the price shown at checkout until it is canceled.</li>
  <li>Tax is assessed by the payment processor from the billing address you enter.</li>
  <li>AI agents may prepare a checkout for you, but only the account owner can complete it, at the billing page.</li>
  <li>Credits used beyond a plan's monthly allowance are billed in arrears at the end of each billing period.</li>
</ul>
<p class="muted">Prices and plans: <a href="${escapeHtml(baseUrl)}/api/v1/pricing">${escapeHtml(baseUrl)}/api/v1/pricing</a>.</p>`,
  );
}

export function renderPrivacyPage(baseUrl: string): string {
  return page(
    'Colony privacy policy',
    `<h1>Privacy policy</h1>
<p>What this deployment (${escapeHtml(baseUrl)}) keeps when you buy a plan:</p>
<ul>
  <li>The checkout session: the items, their prices and the buyer details an agent or you supplied (name, email).</li>
  <li>Your account (name and email) and your subscription: plan, billing period, trial end and status.</li>
  <li>Payment details and billing address go to the payment processor only; Colony never stores card numbers.</li>
</ul>
<p>Checkout sessions expire after six hours; idempotency records of checkout requests are kept for at least 24 hours.</p>`,
  );
}
