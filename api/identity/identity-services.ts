// The identity services every surface reads as `app.colony.identity`, built once by buildServer().
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { type CounterStore, RateLimiter } from '../shared/rate-limit/rate-limiter.ts';
import type { OfficeMembersRepo } from '../storage/office-members-repo.ts';
import type { Storage } from '../storage/storage.ts';
import { AccountService } from './accounts/account-service.ts';
import { type CookiePolicy, cookiePolicy } from './accounts/session-cookie.ts';

/** Password attempts (sign-in and sign-up) per client address, and per email, each minute. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

export interface IdentityServices {
  accounts: AccountService;
  officeMembers: OfficeMembersRepo;
  cookiePolicy: CookiePolicy;
  /** Signs the session cookie; generated once and shared by every replica through the database. */
  cookieSecret: string;
  signInLimiter: RateLimiter;
}

export interface IdentityDeps {
  config: Config;
  storage: Storage;
  counterStore: CounterStore;
  now: () => number;
}

export async function createIdentityServices(deps: IdentityDeps): Promise<IdentityServices> {
  const { config, storage, counterStore, now } = deps;
  const repos = storage.identity;
  const cookieSecret = await repos.serverKeys.getOrCreate(
    'session-cookie-hmac',
    () => randomBytes(32).toString('base64url'),
    now(),
  );
  return {
    accounts: new AccountService(repos.accounts, now),
    officeMembers: repos.officeMembers,
    cookiePolicy: cookiePolicy(config.baseUrl),
    cookieSecret,
    signInLimiter: new RateLimiter({
      bucket: 'signin',
      limit: SIGN_IN_ATTEMPTS_PER_MINUTE,
      windowMs: 60_000,
      store: counterStore,
      now,
    }),
  };
}
