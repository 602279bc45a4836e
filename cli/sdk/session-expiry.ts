// Pure: when a stored login's access token needs refreshing, and the login a token response makes.
import type { StoredLogin } from './credential-store.ts';

/** Refresh this long before the stated expiry: clocks drift and a request takes time to arrive. */
export const EXPIRY_MARGIN_MS = 60_000;

/** True when the access token has expired or will within the margin; unknown expiry counts as live. */
export function needsRefresh(login: Pick<StoredLogin, 'expiresAt'>, nowMs: number): boolean {
  if (login.expiresAt === null) return false;
  return Date.parse(login.expiresAt) - EXPIRY_MARGIN_MS <= nowMs;
}

export interface TokenResponseLike {
  access_token: string;
  refresh_token?: string | undefined;
  expires_in?: number | undefined;
  scope?: string | undefined;
}

/**
 * The login to store after a token response. A refresh that returns no new refresh token (no
 * rotation) keeps the old one; one that returns no scope keeps the granted scope.
 */
export function loginFromTokens(
  tokens: TokenResponseLike,
  base: Pick<StoredLogin, 'issuer' | 'resource' | 'clientId' | 'scope'> & {
    refreshToken?: string | null;
  },
  nowMs: number,
): StoredLogin {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? base.refreshToken ?? null,
    expiresAt:
      typeof tokens.expires_in === 'number' ? new Date(nowMs + tokens.expires_in * 1000).toISOString() : null,
    scope: tokens.scope ?? base.scope,
    issuer: base.issuer,
    resource: base.resource,
    clientId: base.clientId,
  };
}
