// Pure: the /signup page, listing the plans and what happens after an account is opened.
import type { PriceList } from '../domain/pricing/price-list.ts';
import { escapeHtml, page } from './html.ts';

const dollars = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 0 })}`;

export function renderSignupPage(baseUrl: string, prices: PriceList, environment: string): string {
  const plans = prices.plans
    .map(
      (p) => `<section class="plan" id="plan-${escapeHtml(p.slug)}">
  <h2>${escapeHtml(p.name)}</h2>
  <p class="price">${dollars(p.monthlyPriceCents)}<span class="muted">/month</span></p>
  <p class="muted">or ${dollars(p.annualPriceCents)}/year</p>
  <p>${escapeHtml(p.description)}</p>
  <ul><li>${p.monthlyCredits.toLocaleString('en-US')} credits a month</li><li>${p.limits.offices} office(s), ${p.limits.agents} agents</li>
  ${p.features.map((f) => `<li>${escapeHtml(f)}</li>`).join('')}</ul>
</section>`,
    )
    .join('\n');
  const sandbox =
    environment === 'sandbox'
      ? '<p><strong>Sandbox:</strong> accounts and data here are disposable and nothing is ever charged.</p>'
      : '';
  return page(
    'Sign up for Colony',
    `<h1>Sign up for Colony</h1>
${sandbox}
<p>Every plan starts with a ${prices.trialDays}-day free trial. Nothing is charged until the trial ends, and tax is
assessed by the payment processor from your billing address.</p>
<div class="plans">
${plans}
</div>
<h2>How an account is opened</h2>
<ol>
  <li>Choose a plan. An AI agent may start the checkout for you through ACP or UCP; it never pays on your behalf.</li>
  <li>Finish at the hosted billing page the agent gives you (its <code>continue_url</code>): sign in or create your account there.</li>
  <li>Create an API key (prefix <code>col_</code>) or sign the CLI in with <code>colony login</code> to manage your offices.</li>
</ol>
<p>Agents: read <a href="${escapeHtml(baseUrl)}/auth.md">auth.md</a> for how to obtain each credential, and
<a href="${escapeHtml(baseUrl)}/api/v1/commerce/catalog">the catalog</a> for item ids.</p>`,
  );
}
