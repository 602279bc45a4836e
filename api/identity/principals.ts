// Builds the Principal of an account's credential: its scopes, and the offices it may act on now.
import type { Principal } from '../shared/identity.ts';
import type { AccountView } from './account-views.ts';

export interface AccountCredential {
  type: Principal['type'];
  credential: Principal['credential'];
  scopes: string[];
  /** Offices the credential was bound to; null binds it to every office of the account. */
  offices: string[] | null;
  credentialId?: string;
  resource?: string;
  clientId?: string;
  /** An agent credential's agent. */
  agent?: string;
}

/**
 * Membership comes from the account view, which a membership change flushes, so removing someone
 * from an office takes effect on their next request, whatever credentials they hold; a binding can
 * only narrow it.
 */
export function accountPrincipal(view: AccountView, credential: AccountCredential): Principal {
  const { account } = view;
  const memberOf = view.memberOf.map((m) => m.officeId);
  const offices =
    credential.offices === null ? memberOf : credential.offices.filter((o) => memberOf.includes(o));
  return {
    type: credential.type,
    subject: account.id,
    accountId: account.id,
    name: account.name,
    email: account.email,
    scopes: credential.scopes,
    offices,
    officeBinding: credential.offices === null ? 'account' : 'listed',
    credential: credential.credential,
    ...(credential.credentialId ? { credentialId: credential.credentialId } : {}),
    ...(credential.resource ? { resource: credential.resource } : {}),
    ...(credential.clientId ? { clientId: credential.clientId } : {}),
    ...(credential.agent ? { agent: credential.agent } : {}),
  };
}
