// The identity repositories (and the memory store keyed by account), grouped so Storage gains one field.
import { AccountsRepo } from './accounts-repo.ts';
import { ApiKeysRepo } from './api-keys-repo.ts';
import { MemoriesRepo } from './memories-repo.ts';
import { OAuthArtifactsRepo } from './oauth-artifacts-repo.ts';
import { OfficeMembersRepo } from './office-members-repo.ts';
import { ServerKeysRepo } from './server-keys-repo.ts';
import type { SqlDriver } from './sql-driver.ts';

export class IdentityRepos {
  readonly accounts: AccountsRepo;
  readonly officeMembers: OfficeMembersRepo;
  readonly serverKeys: ServerKeysRepo;
  readonly oauth: OAuthArtifactsRepo;
  readonly apiKeys: ApiKeysRepo;
  /** The memory (cortex) of each account. */
  readonly memories: MemoriesRepo;

  constructor(db: SqlDriver) {
    this.accounts = new AccountsRepo(db);
    this.officeMembers = new OfficeMembersRepo(db);
    this.serverKeys = new ServerKeysRepo(db);
    this.oauth = new OAuthArtifactsRepo(db);
    this.apiKeys = new ApiKeysRepo(db);
    this.memories = new MemoriesRepo(db);
  }
}
