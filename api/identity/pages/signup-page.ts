// Pure: the /signup page, the account form beside the plans and what happens after an account is opened.

import type { PriceList } from '../../domain/pricing/price-list.ts';
import { escapeHtml, page } from '../../shared/html.ts';
import { PASSWORD_MIN } from '../accounts/account.ts';
import { type FieldErrors, field, formMessage, formStyles, hidden } from './form-kit.ts';

const dollars = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 0 })}`;

export interface SignupView {
  baseUrl: string;
  prices: PriceList;
  environment: string;
  csrf: string;
  returnTo: string;
  values?: { name?: string; email?: string };
  errors?: FieldErrors;
  message?: string;
}

function plansSection(prices: PriceList): string {
  return prices.plans
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
}

function signupForm(v: SignupView): string {
  const errors = v.errors ?? {};
  const signin = `/signin?return_to=${encodeURIComponent(v.returnTo)}`;
  return `<form class="card" method="post" action="/signup" novalidate>
${formMessage(v.message)}
${hidden('_csrf', v.csrf)}${hidden('return_to', v.returnTo)}
${field({ name: 'name', label: 'Your name', type: 'text', value: v.values?.name ?? '', autocomplete: 'name' }, errors)}
${field({ name: 'email', label: 'Email', type: 'email', value: v.values?.email ?? '', autocomplete: 'email' }, errors)}
${field(
  {
    name: 'password',
    label: 'Password',
    type: 'password',
    autocomplete: 'new-password',
    hint: `At least ${PASSWORD_MIN} characters. A passphrase is easiest to remember.`,
  },
  errors,
)}
<button type="submit">Create account</button>
<p class="muted">Already have an account? <a href="${escapeHtml(signin)}">Sign in</a>.</p>
</form>`;
}

export function renderSignupPage(v: SignupView): string {
  const sandbox =
    v.environment === 'sandbox'
      ? '<p><strong>Sandbox:</strong> accounts and data here are disposable and nothing is ever charged.</p>'
      : '';
  return page(
    'Sign up for Colony',
    `${formStyles}
<h1>Sign up for Colony</h1>
${sandbox}
${signupForm(v)}
<h2>Plans</h2>
<p>Every plan starts with a ${v.prices.trialDays}-day free trial. Nothing is charged until the trial ends, and tax is
assessed by the payment processor from your billing address.</p>
<div class="plans">
${plansSection(v.prices)}
</div>
<h2>How an account is opened</h2>
<ol>
  <li>Create your account here. An AI agent may start a checkout for you through ACP or UCP; it never pays on your behalf.</li>
  <li>Finish at the hosted billing page the agent gives you (its <code>continue_url</code>), signed in to this account.</li>
  <li>Create an API key (prefix <code>col_</code>) on your account page or sign the CLI in with <code>colony login</code> to manage your offices.</li>
</ol>
<p>Agents: read <a href="${escapeHtml(v.baseUrl)}/auth.md">auth.md</a> for how to obtain each credential, and
<a href="${escapeHtml(v.baseUrl)}/api/v1/commerce/catalog">the catalog</a> for item ids.</p>`,
  );
}
