// Pure: the /account page of a signed-in person: profile, offices, API keys, connected apps, sign-out.
import { escapeHtml, page } from '../../shared/html.ts';
import type { Account } from '../accounts/account.ts';
import type { ApiKeyRecord } from '../keys/api-keys-repo.ts';
import type { RevealedKey } from '../keys/key-reveals.ts';
import type { ConnectedApp } from '../oauth/connected-apps.ts';
import type { OfficeMember } from '../offices/office-members-repo.ts';
import { apiKeyScopes, defaultApiKeyScopes, scopeDescriptions } from '../scopes.ts';
import { type FieldErrors, formMessage, formStyles, hidden } from './form-kit.ts';

export interface AccountView {
  account: Account;
  offices: OfficeMember[];
  keys: ApiKeyRecord[];
  apps: ConnectedApp[];
  /** HTML another domain renders for this account (its plan and orders), placed as it comes. */
  planSection?: string;
  /** HTML the office domain renders: creating offices self-serve, provisioning agent credentials. */
  officeSection?: string;
  /** The account's metered usage this period, rendered by the commerce domain, placed as it comes. */
  usageSection?: string;
  csrf: string;
  keyPrefix: string;
  keyErrors?: FieldErrors;
}

const day = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString().slice(0, 10));
const codes = (items: string[]) => items.map((i) => `<code>${escapeHtml(i)}</code>`).join(' ');

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

function keysTable(keys: ApiKeyRecord[], csrf: string): string {
  if (keys.length === 0) return '<p class="muted" id="no-keys">No API keys yet.</p>';
  const rows = keys
    .map(
      (
        k,
      ) => `<tr id="key-${escapeHtml(k.id)}"><td>${escapeHtml(k.name)}</td><td><code>${escapeHtml(k.hint)}</code></td>
<td>${codes(k.scopes)}</td><td>${k.offices === null ? 'all my offices' : codes(k.offices)}</td>
<td>${day(k.createdAt)}</td><td>${day(k.lastUsedAt)}</td><td>${day(k.expiresAt)}</td>
<td><form method="post" action="/account/keys/${escapeHtml(k.id)}/revoke">${hidden('_csrf', csrf)}<button class="secondary" type="submit">Revoke</button></form></td></tr>`,
    )
    .join('\n');
  return `<table id="keys"><thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Offices</th><th>Created</th><th>Last used</th><th>Expires</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function newKeyForm(v: AccountView): string {
  const scopes = apiKeyScopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="scope" value="${s}"${defaultApiKeyScopes.includes(s) ? ' checked' : ''}> <code>${s}</code> <span class="muted">${escapeHtml(scopeDescriptions[s])}</span></label>`,
    )
    .join('\n');
  const offices = v.offices
    .map(
      (o) =>
        `<label><input type="checkbox" name="office" value="${escapeHtml(o.officeId)}"> <code>${escapeHtml(o.officeId)}</code></label>`,
    )
    .join('\n');
  return `<form class="card" method="post" action="/account/keys" id="new-key">
<h3>New API key</h3>
${formMessage(Object.values(v.keyErrors ?? {})[0])}
${hidden('_csrf', v.csrf)}
<label for="key-name">Name</label><input id="key-name" type="text" name="name" required maxlength="100" placeholder="ci deploys">
<fieldset><legend>Scopes</legend>${scopes}</fieldset>
<fieldset><legend>Offices</legend>
<label><input type="radio" name="binding" value="all" checked> All my offices, now and later</label>
<label><input type="radio" name="binding" value="selected"> Only these:</label>
${offices || '<p class="muted">(you are a member of no office yet)</p>'}
</fieldset>
<label for="key-expires">Expires</label>
<select id="key-expires" name="expires"><option value="never">never</option><option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in a year</option></select>
<button type="submit">Create key</button>
</form>`;
}

function appsSection(apps: ConnectedApp[], csrf: string): string {
  if (apps.length === 0) return '<p class="muted" id="no-apps">No applications are connected.</p>';
  const rows = apps
    .map(
      (a) => `<tr><td>${escapeHtml(a.clientName)}</td><td>${codes(a.scopes)}</td><td>${day(a.grantedAt)}</td>
<td><form method="post" action="/account/apps/${encodeURIComponent(a.grantId)}/revoke">${hidden('_csrf', csrf)}<button class="secondary" type="submit">Disconnect</button></form></td></tr>`,
    )
    .join('\n');
  return `<table id="apps"><thead><tr><th>Application</th><th>Access</th><th>Since</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
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
  <dt>Member since</dt><dd>${day(a.createdAt)}</dd>
</dl>
${v.planSection ?? ''}
${v.usageSection ?? ''}
${v.officeSection ?? ''}
<h2>Offices</h2>
${officesSection(v.offices)}
<h2>API keys</h2>
<p>Keys start with <code>${escapeHtml(v.keyPrefix)}</code> and are sent as <code>Authorization: Bearer &lt;key&gt;</code>.
A key is shown once, when it is created; Colony keeps only a hash of it.</p>
${keysTable(v.keys, v.csrf)}
${newKeyForm(v)}
<h2>Connected applications</h2>
${appsSection(v.apps, v.csrf)}
<form method="post" action="/signout">${hidden('_csrf', v.csrf)}<button class="secondary" type="submit">Sign out</button></form>`,
  );
}

/** The one time a key is shown. */
export function renderKeyCreatedPage(key: RevealedKey): string {
  return page(
    'API key created',
    `${formStyles}
<h1>API key created</h1>
<p>Copy <strong>${escapeHtml(key.name)}</strong> now. It will not be shown again.</p>
<p class="secret" id="api-key">${escapeHtml(key.token)}</p>
<p>Use it as <code>Authorization: Bearer ${escapeHtml(key.hint)}</code>, or set <code>COLONY_API_KEY</code> for the CLI and SDK.</p>
<p><a href="/account">Back to your account</a></p>`,
  );
}

/** What a reload of that page, or a late visit, shows: never the key. */
export function renderKeyAlreadyShownPage(): string {
  return page(
    'API key already shown',
    `${formStyles}
<h1 id="key-already-shown">This key was already shown</h1>
<p>A key is shown once, right after it is created, and Colony keeps only a hash of it. If you did not
copy it, revoke it on <a href="/account">your account</a> and create another.</p>`,
  );
}
