// The identity repositories, grouped so Storage gains one field for them.
import { AccountsRepo } from './accounts-repo.ts';
import { OfficeMembersRepo } from './office-members-repo.ts';
import { ServerKeysRepo } from './server-keys-repo.ts';
import type { SqlDriver } from './sql-driver.ts';

export class IdentityRepos {
  readonly accounts: AccountsRepo;
  readonly officeMembers: OfficeMembersRepo;
  readonly serverKeys: ServerKeysRepo;

  constructor(db: SqlDriver) {
    this.accounts = new AccountsRepo(db);
    this.officeMembers = new OfficeMembersRepo(db);
    this.serverKeys = new ServerKeysRepo(db);
  }
}
