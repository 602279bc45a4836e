// Builds the Principal of an account's credential: its scopes, and the offices it may act on now.
import type { Principal } from '../shared/identity.ts';
import type { Account } from './accounts/account.ts';
import type { OfficeMembersRepo } from './offices/office-members-repo.ts';

export interface AccountCredential {
  type: Principal['type'];
  credential: Principal['credential'];
  scopes: string[];
  /** Offices the credential was bound to; null binds it to every office of the account. */
  offices: string[] | null;
  credentialId?: string;
  resource?: string;
  clientId?: string;
}

/**
 * Membership is read at every verification, so removing someone from an office takes effect on
 * their next request, whatever credentials they hold; a binding can only narrow it.
 */
export async function accountPrincipal(
  account: Account,
  credential: AccountCredential,
  members: OfficeMembersRepo,
): Promise<Principal> {
  const memberOf = (await members.ofAccount(account.id)).map((m) => m.officeId);
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
    credential: credential.credential,
    ...(credential.credentialId ? { credentialId: credential.credentialId } : {}),
    ...(credential.resource ? { resource: credential.resource } : {}),
    ...(credential.clientId ? { clientId: credential.clientId } : {}),
  };
}
