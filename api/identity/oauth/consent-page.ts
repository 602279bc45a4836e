// Pure: the consent page, where a signed-in person approves or denies an application's request.
import { escapeHtml, page } from '../../shared/html.ts';
import type { Account } from '../accounts/account.ts';
import { formStyles, hidden } from '../pages/form-kit.ts';
import { scopeDescriptions } from '../scopes.ts';

export interface ConsentView {
  uid: string;
  account: Account;
  clientName: string;
  clientId: string;
  /** Where the browser returns afterwards; absent for the device flow. */
  redirectHost: string | undefined;
  scopes: string[];
  resources: { identifier: string; name: string }[];
  csrf: string;
}

const describe = (scope: string) =>
  (scopeDescriptions as Record<string, string>)[scope] ?? `Use the scope ${scope}`;

export function renderConsentPage(v: ConsentView): string {
  const scopes = v.scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(describe(s))}</li>`)
    .join('\n');
  const resources = v.resources.map(
    (r) => `<li>${escapeHtml(r.name)} (<code>${escapeHtml(r.identifier)}</code>)</li>`,
  );
  const where = v.redirectHost
    ? `<p>Afterwards you return to <strong>${escapeHtml(v.redirectHost)}</strong>.</p>`
    : '<p>This request comes from a device. Approve only if you started it yourself.</p>';
  const action = `/oauth/interaction/${encodeURIComponent(v.uid)}`;
  return page(
    'Authorize access',
    `${formStyles}
<h1>Authorize <span id="client-name">${escapeHtml(v.clientName)}</span></h1>
<p>Signed in as <strong>${escapeHtml(v.account.email)}</strong>. <span class="muted">Client id <code>${escapeHtml(v.clientId)}</code></span></p>
<p>It asks to:</p>
<ul id="scopes">
${scopes || '<li>Confirm who you are</li>'}
</ul>
${resources.length > 0 ? `<p>For:</p><ul id="resources">${resources.join('')}</ul>` : ''}
${where}
<form method="post" action="${action}/confirm">${hidden('_csrf', v.csrf)}<button id="approve" type="submit">Approve</button></form>
<form method="post" action="${action}/deny">${hidden('_csrf', v.csrf)}<button id="deny" class="secondary" type="submit">Deny</button></form>
<p class="muted">You can disconnect it at any time from <a href="/account">your account</a>.</p>`,
  );
}
