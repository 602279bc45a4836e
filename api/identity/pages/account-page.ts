// Pure: the /account page of a signed-in person: profile, offices and sign-out.
import { escapeHtml, page } from '../../discovery/html.ts';
import type { OfficeMember } from '../../storage/office-members-repo.ts';
import type { Account } from '../accounts/account.ts';
import { formStyles, hidden } from './form-kit.ts';

export interface AccountView {
  account: Account;
  offices: OfficeMember[];
  csrf: string;
}

function officesSection(offices: OfficeMember[]): string {
  if (offices.length === 0) {
    return `<p class="muted">You are not a member of any office yet. An operator adds you with
<code>PUT /api/v1/offices/{officeID}/members</code> (see <a href="/auth.md">auth.md</a>).</p>`;
  }
  const rows = offices
    .map((o) => `<tr><td><code>${escapeHtml(o.officeId)}</code></td><td>${escapeHtml(o.role)}</td></tr>`)
    .join('\n');
  return `<table id="offices"><thead><tr><th>Office</th><th>Role</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

export function renderAccountPage(v: AccountView): string {
  const a = v.account;
  return page(
    'Your Colony account',
    `${formStyles}
<h1>Your account</h1>
<dl>
  <dt>Name</dt><dd id="account-name">${escapeHtml(a.name)}</dd>
  <dt>Email</dt><dd id="account-email">${escapeHtml(a.email)}</dd>
  <dt>Account id</dt><dd><code id="account-id">${escapeHtml(a.id)}</code></dd>
  <dt>Member since</dt><dd>${new Date(a.createdAt).toISOString().slice(0, 10)}</dd>
</dl>
<h2>Offices</h2>
${officesSection(v.offices)}
<form method="post" action="/signout">${hidden('_csrf', v.csrf)}<button class="secondary" type="submit">Sign out</button></form>`,
  );
}
