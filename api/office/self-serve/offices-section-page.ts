// Pure: the office section of /account: how many offices the plan allows, the form that creates one
// self-serve, and the form that provisions an agent credential for an office the account owns.
import type { AccountEntitlements } from '../../commerce/entitlements/entitlement-rules.ts';
import { escapeHtml, page } from '../../shared/html.ts';

export interface OfficesSectionView {
  entitlements: AccountEntitlements;
  /** Offices counting against the account's plan. */
  billed: string[];
  /** Offices the account owns (agent credentials can be provisioned for these). */
  owned: string[];
  csrf: string;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

function planLine(v: OfficesSectionView): string {
  const e = v.entitlements;
  if (!e.plan || !e.entitled)
    return `<p id="office-room" class="muted">Creating offices yourself takes an active plan or free trial${e.plan ? ` (your ${escapeHtml(e.plan.name)} plan is ${escapeHtml(e.status ?? '')})` : ''}. Offices you already have keep running.</p>`;
  return `<p id="office-room">Your ${escapeHtml(e.plan.name)} plan: <strong>${v.billed.length} of ${e.plan.limits.offices}</strong> offices, up to ${e.plan.limits.agents} agents and ${e.plan.limits.integrations} integrations across them.</p>`;
}

function agentForm(v: OfficesSectionView): string {
  if (v.owned.length === 0)
    return '<p class="muted" id="no-owned-offices">Agent credentials are provisioned for an office you own.</p>';
  const options = v.owned.map((o) => `<option value="${escapeHtml(o)}">${escapeHtml(o)}</option>`).join('');
  return `<form class="card" method="post" action="/account/agent-credentials" id="new-agent-credential">
<h3>New agent credential</h3>
<p class="muted">An API key for one agent, bound to one of your offices: it operates that office and nothing else, and is shown once.</p>
${hidden('_csrf', v.csrf)}
<label for="agent-office">Office</label><select id="agent-office" name="office">${options}</select>
<label for="agent-name">Agent</label><input id="agent-name" type="text" name="agent" required maxlength="63" pattern="[a-z0-9]([-a-z0-9]*[a-z0-9])?" placeholder="scout">
<label for="agent-expires">Expires</label>
<select id="agent-expires" name="expires"><option value="never">never</option><option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in a year</option></select>
<button type="submit">Provision credential</button>
</form>`;
}

export function renderOfficesSection(v: OfficesSectionView): string {
  return `<h2>Create an office</h2>
${planLine(v)}
<form class="card" method="post" action="/account/offices" id="new-office">
${hidden('_csrf', v.csrf)}
<label for="office-id">Office name</label><input id="office-id" type="text" name="officeId" required maxlength="63" pattern="[a-z0-9]([-a-z0-9]*[a-z0-9])?" placeholder="acme">
<small class="muted">Lowercase letters, digits and hyphens. You become its first owner, and it counts against your plan.</small>
<button type="submit">Create office</button>
</form>
<h2>Agent credentials</h2>
${agentForm(v)}`;
}

/** Why a form of this section was refused, with the way back. */
export function renderRefusalPage(title: string, detail: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p id="refusal">${escapeHtml(detail)}</p>
<p><a href="/account">Back to your account</a></p>`,
  );
}
