// The identity services: built once by buildServer(), handed out by the mount table (api/routes.ts).

import { randomBytes } from 'node:crypto';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import { openAiChatModel } from '../memory/chat-model.ts';
import { openAiEmbedder } from '../memory/embedder.ts';
import { MemoryService } from '../memory/memory-service.ts';
import type { CircuitBreaker } from '../shared/circuit-breaker.ts';
import type { CredentialVerifier } from '../shared/identity.ts';
import { type CounterStore, RateLimiter } from '../shared/rate-limit/rate-limiter.ts';
import { AccountViews } from './account-views.ts';
import { AccountService } from './accounts/account-service.ts';
import { type CookiePolicy, cookiePolicy } from './accounts/session-cookie.ts';
import { SigninThrottle } from './accounts/signin-throttle.ts';
import { CredentialCache } from './credential-cache.ts';
import { ApiKeyService } from './keys/api-key-service.ts';
import { KeyReveals } from './keys/key-reveals.ts';
import { accessTokenVerifier } from './oauth/access-token-verifier.ts';
import { type AuthorizationServer, createAuthorizationServer } from './oauth/authorization-server.ts';
import { ConnectedApps } from './oauth/connected-apps.ts';
import type { ResourceServerSpec } from './oauth/resources.ts';
import type { OfficeMembersRepo } from './offices/office-members-repo.ts';

export interface IdentityServices {
  accounts: AccountService;
  officeMembers: OfficeMembersRepo;
  cookiePolicy: CookiePolicy;
  /** Signs the session cookie; generated once and shared by every replica through the database. */
  cookieSecret: string;
  /** Sign-up attempts per address and per email. */
  signInLimiter: RateLimiter;
  /** Wrong sign-in passwords per (address, account) with progressive delays, and per address. */
  signinThrottle: SigninThrottle;
  /** The OAuth 2.1 / OpenID Connect authorization server (oidc-provider). */
  authorizationServer: AuthorizationServer;
  apiKeys: ApiKeyService;
  /** The one showing of a key created on the account page, after its redirect. */
  keyReveals: KeyReveals;
  connectedApps: ConnectedApps;
  /**
   * Verifiers for the credentials identity issues to a caller of `resource`: API keys (for every
   * resource) and OAuth access tokens issued for that resource.
   */
  verifiersFor(resource: ResourceServerSpec): CredentialVerifier[];
  /** Accounts with their memberships, cached with the verifications they decide. */
  accountViews: AccountViews;
  /** Each account's memory (cortex), served by the MCP memory tools. */
  memory: MemoryService;
}

/** The server_keys row every replica's credential cache watches; rewritten at each revocation. */
const REVOCATION_MARKER = 'credential-revocations';

export interface IdentityDeps {
  config: Config;
  storage: Storage;
  counterStore: CounterStore;
  /** The same store counting exact fixed windows (the limits may count sliding ones): the sign-in throttle's. */
  exactCounterStore?: CounterStore;
  now: () => number;
  /** Where failures of optional helpers (the embeddings API, the answer model) are reported. */
  log?: { warn(obj: object, msg: string): void };
  /** The model APIs' circuit breakers, when the caller watches them (status page, metrics). */
  breakers?: ModelBreakers;
}

export interface ModelBreakers {
  embeddings?: CircuitBreaker;
  answerModel?: CircuitBreaker;
}

export async function createIdentityServices(deps: IdentityDeps): Promise<IdentityServices> {
  const { config, storage, counterStore, now } = deps;
  const repos = storage.identity;
  const cookieSecret = await repos.serverKeys.getOrCreate(
    'session-cookie-hmac',
    () => randomBytes(32).toString('base64url'),
    now(),
  );
  const accounts = new AccountService(repos.accounts, now);
  const credentialCache = new CredentialCache({
    ttlMs: config.credentialCache.ttlMs,
    checkEveryMs: config.credentialCache.revocationCheckMs,
    marker: {
      read: () => repos.serverKeys.get(REVOCATION_MARKER),
      renew: async () => {
        const value = randomBytes(12).toString('base64url');
        await repos.serverKeys.put(REVOCATION_MARKER, value, now());
        return value;
      },
    },
    now,
  });
  repos.officeMembers.onChange(() => credentialCache.revoked());
  const accountViews = new AccountViews(accounts, repos.officeMembers, credentialCache);
  const policy = cookiePolicy(config.baseUrl);
  const authorizationServer = await createAuthorizationServer({
    baseUrl: config.baseUrl,
    environment: config.environment,
    repos,
    accounts,
    cookiePolicy: policy,
    cookieSecret,
    now,
    onRevoke: () => credentialCache.revoked(),
  });
  const apiKeys = new ApiKeyService({
    repo: repos.apiKeys,
    members: repos.officeMembers,
    accounts: accountViews,
    cache: credentialCache,
    environment: config.environment,
    now,
  });
  return {
    accounts,
    accountViews,
    apiKeys,
    keyReveals: new KeyReveals(repos.keyReveals, now),
    officeMembers: repos.officeMembers,
    cookiePolicy: policy,
    cookieSecret,
    authorizationServer,
    connectedApps: new ConnectedApps(authorizationServer, repos.oauth, now),
    memory: new MemoryService({
      repo: repos.memories,
      dialect: storage.kind,
      now,
      embedder: config.embeddings
        ? openAiEmbedder({ ...config.embeddings, breaker: deps.breakers?.embeddings })
        : undefined,
      ...(deps.log ? { onEmbeddingError: (err: Error) => deps.log?.warn({ err }, 'embedding failed') } : {}),
      answerModel: config.answerModel
        ? openAiChatModel({ ...config.answerModel, breaker: deps.breakers?.answerModel })
        : undefined,
      ...(deps.log
        ? {
            onAnswerModelError: (err: Error) =>
              deps.log?.warn({ err }, 'answer model failed; answered extractively'),
          }
        : {}),
    }),
    verifiersFor: (resource) => [
      apiKeys.verifier(),
      accessTokenVerifier(authorizationServer, accountViews, credentialCache, {
        baseUrl: config.baseUrl,
        resource,
      }),
    ],
    signInLimiter: new RateLimiter({
      bucket: 'signin',
      limit: config.rateLimit.signInPerMinute,
      windowMs: 60_000,
      store: counterStore,
      now,
    }),
    signinThrottle: new SigninThrottle({
      store: deps.exactCounterStore ?? counterStore,
      freeFailures: config.rateLimit.signInFreeFailures,
      maxDelayMs: config.rateLimit.signInMaxDelaySeconds * 1000,
      addressFailuresPerMinute: config.rateLimit.signInPerMinute,
      onStoreError: (err) =>
        deps.log?.warn({ err }, 'sign-in throttle store unreachable; attempt let through'),
      now,
    }),
  };
}
