// Who a bearer token speaks for. Verifiers are tried in order; issuing tokens lives elsewhere.
import { timingSafeEqual } from 'node:crypto';

export interface Principal {
  /** `service_auth`: an operator credential; `user`: an account's OAuth grant or API key. */
  type: 'service_auth' | 'user';
  subject: string;
  /** The account behind a user credential (API key, OAuth grant); absent for the bootstrap token. */
  accountId?: string;
  name: string;
  email?: string;
  scopes: string[];
  /** Offices this principal may act on; `*` means every office. */
  offices: string[] | '*';
  /**
   * An account credential bound to every office of the account (`account`, also those it creates
   * later) or only to the ones it lists (`listed`); absent for the bootstrap token.
   */
  officeBinding?: 'account' | 'listed';
  /**
   * Set for an agent credential (an API key provisioned for one agent of one office): it operates
   * that office but never acts as the owner who made it (members, creating or deleting offices).
   */
  agent?: string;
  credential: 'bootstrap_token' | 'api_key' | 'oauth_access_token';
  /** An OAuth access token's audience (RFC 8707 resource); absent when the token names none. */
  resource?: string;
  /** The OAuth client an access token was issued to. */
  clientId?: string;
  /** The credential's own id (an API key id), so it can be named and revoked. */
  credentialId?: string;
}

/** A token a verifier knows but will not accept where it was sent (a token for another resource). */
export interface TokenRefusal {
  /** Why, for the RFC 6750 error_description: printable, and never the token itself. */
  refused: string;
}

export type Verification = Principal | TokenRefusal | null;

export interface CredentialVerifier {
  readonly name: string;
  /**
   * Null when the token is not one this verifier knows. A verifier answers without a promise when it
   * can (a cached verification), so an authenticated request pays no promise on the hot path.
   */
  verify(token: string): Verification | Promise<Verification>;
}

export function isRefusal(v: Verification): v is TokenRefusal {
  return v !== null && 'refused' in v;
}

/** Every scope a Colony credential can carry; `scopes_supported` adds `offline_access` to these. */
export const allScopes = [
  'backups:read',
  'backups:write',
  'backups:admin',
  'memory:read',
  'memory:write',
  'offices:read',
  'offices:write',
  'keys:write',
  'openid',
  'profile',
  'email',
] as const;

export type Scope = (typeof allScopes)[number];

/** COLONY_BOOTSTRAP_TOKEN: an operator credential with access to every office, for first setup. */
export function bootstrapTokenVerifier(secret: string): CredentialVerifier {
  const expected = Buffer.from(secret);
  return {
    name: 'bootstrap-token',
    verify(token) {
      const given = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return {
        type: 'service_auth',
        subject: 'operator:bootstrap',
        name: 'Bootstrap operator',
        scopes: [...allScopes],
        offices: '*',
        credential: 'bootstrap_token',
      };
    },
  };
}

/** Offices were resolved when the token was verified: `*` or the credential's binding. */
export function principalCoversOffice(principal: Principal, officeId: string): boolean {
  return principal.offices === '*' || principal.offices.includes(officeId);
}

/**
 * The first verifier that knows the token decides: a principal, or a refusal saying why. Verifiers are
 * asked in order; the answer is a promise only when one of them had to wait.
 */
export function verifyToken(
  verifiers: readonly CredentialVerifier[],
  token: string,
  from = 0,
): Verification | Promise<Verification> {
  for (let i = from; i < verifiers.length; i++) {
    const verified = (verifiers[i] as CredentialVerifier).verify(token);
    if (verified instanceof Promise) return verified.then((v) => v ?? verifyToken(verifiers, token, i + 1));
    if (verified) return verified;
  }
  return null;
}
