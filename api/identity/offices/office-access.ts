// canActOnOffice(principalOrAccount, officeId): may this credential or signed-in person operate the office?
import { type Principal, principalCoversOffice } from '../../shared/identity.ts';
import type { Account } from '../accounts/account.ts';
import type { OfficeRole } from './office-members-repo.ts';

export interface MembershipLookup {
  role(officeId: string, accountId: string): Promise<OfficeRole | undefined>;
}

// Accounts remember the storage they were read from, so the check needs no services argument and
// an Account built by hand (not by currentAccount) is refused rather than trusted.
const lookups = new WeakMap<object, MembershipLookup>();

export function bindOfficeLookup<T extends Account>(account: T, lookup: MembershipLookup): T {
  lookups.set(account, lookup);
  return account;
}

const isPrincipal = (who: Principal | Account): who is Principal => 'offices' in who && 'scopes' in who;

/**
 * A principal's offices were resolved when its token was verified (`*` for the bootstrap token, the
 * key's binding for an API key); an account may act on the offices it is a member of.
 */
export async function canActOnOffice(who: Principal | Account, officeId: string): Promise<boolean> {
  if (isPrincipal(who)) return principalCoversOffice(who, officeId);
  const lookup = lookups.get(who);
  if (!lookup) return false;
  return (await lookup.role(officeId, who.id)) !== undefined;
}

/** The account's role in the office, or undefined when it is not a member. */
export async function officeRole(account: Account, officeId: string): Promise<OfficeRole | undefined> {
  return lookups.get(account)?.role(officeId, account.id);
}
