// The identity repositories (and the memory store keyed by account), grouped so Storage gains one field.

import { MemoriesRepo } from '../memory/memories-repo.ts';
import type { SqlDriver } from '../storage/sql-driver.ts';
import { AccountsRepo } from './accounts/accounts-repo.ts';
import { ApiKeysRepo } from './keys/api-keys-repo.ts';
import { KeyRevealsRepo } from './keys/key-reveals-repo.ts';
import { OAuthArtifactsRepo } from './oauth/oauth-artifacts-repo.ts';
import { ServerKeysRepo } from './oauth/server-keys-repo.ts';
import { OfficeMembersRepo } from './offices/office-members-repo.ts';

export class IdentityRepos {
  readonly accounts: AccountsRepo;
  readonly officeMembers: OfficeMembersRepo;
  readonly serverKeys: ServerKeysRepo;
  readonly oauth: OAuthArtifactsRepo;
  readonly apiKeys: ApiKeysRepo;
  readonly keyReveals: KeyRevealsRepo;
  /** The memory (cortex) of each account. */
  readonly memories: MemoriesRepo;

  constructor(db: SqlDriver) {
    this.accounts = new AccountsRepo(db);
    this.officeMembers = new OfficeMembersRepo(db);
    this.serverKeys = new ServerKeysRepo(db);
    this.oauth = new OAuthArtifactsRepo(db);
    this.apiKeys = new ApiKeysRepo(db);
    this.keyReveals = new KeyRevealsRepo(db);
    this.memories = new MemoriesRepo(db);
  }
}
