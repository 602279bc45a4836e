// Creating, listing, revoking and verifying API keys; knows nothing of HTTP.
import type { CredentialVerifier, Principal } from '../../shared/identity.ts';
import { randomId } from '../../shared/random-id.ts';
import { tokenDigest } from '../../shared/token-digest.ts';
import type { AccountViews } from '../account-views.ts';
import type { CredentialCache } from '../credential-cache.ts';
import type { OfficeMembersRepo } from '../offices/office-members-repo.ts';
import { accountPrincipal } from '../principals.ts';
import { apiKeyHint, apiKeyPrefix, generateApiKey, isWellFormedApiKey } from './api-key-format.ts';
import type { ApiKeyRecord, ApiKeysRepo } from './api-keys-repo.ts';

/** Enough for any fleet of agents, few enough that a leaked session cannot mint keys without end. */
export const MAX_ACTIVE_KEYS = 100;
/** last_used_at is written at most once a minute per key, so a busy key costs no write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * What a key is stored under and looked up by: its SHA-256 in hex. A request's verification takes it
 * from the connection's memo (token-digest.ts) when the connection sent the same key before.
 */
export const hashApiKey = (token: string) => tokenDigest(token, 'hex');

export interface NewApiKey {
  name: string;
  scopes: string[];
  offices: string[] | null;
  expiresInDays: number | null;
}

export type CreateKeyResult =
  | { ok: true; key: ApiKeyRecord; token: string }
  | { ok: false; reason: 'too_many' | 'not_a_member' | 'not_an_owner'; detail: string };

/** What an agent credential may do: operate its one office (integrations, agents, the task queue). */
export const agentCredentialScopes = ['offices:read', 'offices:write'];

export class ApiKeyService {
  private readonly repo: ApiKeysRepo;
  private readonly members: OfficeMembersRepo;
  private readonly accounts: AccountViews;
  private readonly cache: CredentialCache;
  private readonly environment: 'production' | 'sandbox';
  private readonly now: () => number;

  constructor(deps: {
    repo: ApiKeysRepo;
    members: OfficeMembersRepo;
    /** Accounts with their memberships, read through the credential cache. */
    accounts: AccountViews;
    cache: CredentialCache;
    environment: 'production' | 'sandbox';
    now: () => number;
  }) {
    this.repo = deps.repo;
    this.members = deps.members;
    this.accounts = deps.accounts;
    this.cache = deps.cache;
    this.environment = deps.environment;
    this.now = deps.now;
  }

  /** Creates a key; the token in the answer is the only copy there will ever be. */
  async create(
    accountId: string,
    input: NewApiKey,
    agentName: string | null = null,
  ): Promise<CreateKeyResult> {
    const at = this.now();
    if ((await this.repo.countActive(accountId, at)) >= MAX_ACTIVE_KEYS) {
      return {
        ok: false,
        reason: 'too_many',
        detail: `An account may hold ${MAX_ACTIVE_KEYS} active keys; revoke one first.`,
      };
    }
    if (input.offices !== null) {
      const memberOf = new Set((await this.members.ofAccount(accountId)).map((m) => m.officeId));
      const foreign = input.offices.filter((o) => !memberOf.has(o));
      if (foreign.length > 0) {
        return {
          ok: false,
          reason: 'not_a_member',
          detail: `You are not a member of office(s) ${foreign.join(', ')}.`,
        };
      }
    }
    const token = generateApiKey(this.environment);
    const key: ApiKeyRecord = {
      id: randomId('key'),
      accountId,
      name: input.name,
      hint: apiKeyHint(token, this.environment),
      tokenHash: hashApiKey(token),
      scopes: [...new Set(input.scopes)].sort(),
      offices: input.offices === null ? null : [...new Set(input.offices)].sort(),
      agentName,
      createdAt: at,
      lastUsedAt: null,
      expiresAt: input.expiresInDays === null ? null : at + input.expiresInDays * 24 * 3600 * 1000,
      revokedAt: null,
    };
    await this.repo.create(key);
    return { ok: true, key, token };
  }

  /**
   * The service_auth flow (spec 5.5): an owner provisions a credential for one agent of one office
   * of theirs: an API key bound to that office with the agent scopes, shown once like any key.
   */
  async createAgentCredential(
    accountId: string,
    input: { officeId: string; agentName: string; expiresInDays: number | null },
  ): Promise<CreateKeyResult> {
    if ((await this.members.role(input.officeId, accountId)) !== 'owner')
      return {
        ok: false,
        reason: 'not_an_owner',
        detail: `Only an owner of office ${input.officeId} may provision its agents' credentials.`,
      };
    const key = {
      name: `agent ${input.agentName} (${input.officeId})`,
      scopes: agentCredentialScopes,
      offices: [input.officeId],
      expiresInDays: input.expiresInDays,
    };
    return this.create(accountId, key, input.agentName);
  }

  list(accountId: string): Promise<ApiKeyRecord[]> {
    return this.repo.listActive(accountId, this.now());
  }

  /** Revokes a key; it fails at once on this replica, and on the others within the cache's check. */
  async revoke(accountId: string, keyId: string): Promise<boolean> {
    const revoked = await this.repo.revoke(accountId, keyId, this.now());
    if (revoked) await this.cache.revoked();
    return revoked;
  }

  /** The key's principal and what keeping last_used_at current needs, from the database. */
  private async load(tokenHash: string, at: number) {
    const key = await this.repo.findUsable(tokenHash, at);
    if (!key) return undefined;
    const view = await this.accounts.view(key.accountId);
    if (!view) return undefined;
    const principal = accountPrincipal(view, {
      type: 'service_auth',
      credential: 'api_key',
      scopes: key.scopes,
      offices: key.offices,
      credentialId: key.id,
      ...(key.agentName ? { agent: key.agentName } : {}),
    });
    return {
      value: { principal, key: { id: key.id, lastUsedAt: key.lastUsedAt } },
      expiresAt: key.expiresAt,
    };
  }

  verifier(): CredentialVerifier {
    const prefix = apiKeyPrefix(this.environment);
    return {
      name: 'api-key',
      verify: (token) => {
        if (!token.startsWith(prefix)) return null;
        const at = this.now();
        const tokenHash = hashApiKey(token);
        const cacheKey = `key:${tokenHash}`;
        // A remembered key was well formed when it was loaded, and its hash is the token's: no checksum
        // to redo, and no promise unless last_used_at is due.
        const known = this.cache.peek<VerifiedKey>(cacheKey);
        if (known && !touchDue(known, at)) return known.principal;
        return this.verifySlowly(token, tokenHash, cacheKey, at);
      },
    };
  }

  private async verifySlowly(token: string, tokenHash: string, cacheKey: string, at: number) {
    // Malformed or mistyped keys are refused by their checksum, without a database round trip.
    if (!isWellFormedApiKey(token, this.environment)) return null;
    const found = await this.cache.through(cacheKey, () => this.load(tokenHash, at));
    if (!found) return null;
    if (touchDue(found, at)) {
      found.key.lastUsedAt = at;
      await this.repo.touch(found.key.id, at);
    }
    return found.principal;
  }
}

interface VerifiedKey {
  principal: Principal;
  key: { id: string; lastUsedAt: number | null };
}

const touchDue = (found: VerifiedKey, at: number) =>
  found.key.lastUsedAt === null || at - found.key.lastUsedAt > TOUCH_EVERY_MS;
