// The usage section of /account: credits used this period against the plan's allowance and the
// overage the account is on course for. Pure rendering beside the one loader the page calls.
import { escapeHtml } from '../../shared/html.ts';
import type { AccountUsage } from './account-usage.ts';
import type { UsageSummary } from './usage-summary.ts';

const n = (credits: number) => credits.toLocaleString('en-US', { maximumFractionDigits: 3 });
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function overageLine(u: UsageSummary): string {
  if (u.projectedOverageCredits === 0)
    return `<p id="usage-projection">At this pace: ${n(u.projectedCredits)} credits by ${u.periodEnd.slice(0, 10)}, within the allowance.</p>`;
  const cost = u.projectedOverageCents === null ? '' : `, about ${dollars(u.projectedOverageCents)}`;
  return `<p id="usage-projection">At this pace: ${n(u.projectedCredits)} credits by ${u.periodEnd.slice(0, 10)}: <strong id="usage-overage">${n(u.projectedOverageCredits)} credits over</strong> the allowance${cost}, billed at the end of the period.</p>`;
}

export function renderUsageSection(u: UsageSummary | null): string {
  if (!u) return '';
  const allowance = u.plan
    ? `of ${n(u.allowanceCredits)} included (${n(u.remainingCredits)} left)`
    : '(no plan: nothing included)';
  const offices =
    u.offices.length === 0
      ? ''
      : `<table id="usage-offices"><thead><tr><th>Office</th><th>Credits</th></tr></thead><tbody>
${u.offices.map((o) => `<tr><td><code>${escapeHtml(o.officeId)}</code></td><td>${n(o.usedCredits)}</td></tr>`).join('\n')}
</tbody></table>`;
  return `<h2>Usage</h2>
<p id="usage">${escapeHtml(u.period)}: <span id="usage-used">${n(u.usedCredits)}</span> credits used ${allowance}. One credit is one agent-hour of a standard agent pod (1 vCPU, 2 GiB).</p>
${overageLine(u)}
${offices}`;
}

/** What /account shows of an account's usage; nothing when nothing is metered. */
export function accountUsageSection(usage: AccountUsage) {
  return async (accountId: string): Promise<string> => renderUsageSection(await usage.forAccount(accountId));
}
