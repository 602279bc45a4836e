// An account with its office memberships, as credential verification and /api/v1/me read it: through
// the credential cache, so a membership change (which flushes it) takes effect on the next request.

import type { Account } from './accounts/account.ts';
import type { AccountService } from './accounts/account-service.ts';
import type { CredentialCache } from './credential-cache.ts';
import type { OfficeMember, OfficeMembersRepo } from './offices/office-members-repo.ts';

export interface AccountView {
  account: Account;
  memberOf: OfficeMember[];
}

export class AccountViews {
  private readonly accounts: AccountService;
  private readonly members: OfficeMembersRepo;
  private readonly cache: CredentialCache;

  constructor(accounts: AccountService, members: OfficeMembersRepo, cache: CredentialCache) {
    this.accounts = accounts;
    this.members = members;
    this.cache = cache;
  }

  /** The view, without a promise when the cache can answer now (see CredentialCache.peek). */
  viewNow(accountId: string): AccountView | undefined | Promise<AccountView | undefined> {
    return this.cache.peek<AccountView>(`account:${accountId}`) ?? this.view(accountId);
  }

  view(accountId: string): Promise<AccountView | undefined> {
    return this.cache.through(`account:${accountId}`, async () => {
      const account = await this.accounts.get(accountId);
      if (!account) return undefined;
      return { value: { account, memberOf: await this.members.ofAccount(accountId) } };
    });
  }
}
