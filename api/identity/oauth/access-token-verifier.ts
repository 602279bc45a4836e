// Verifies OAuth access tokens for one of our resource servers by reading the authorization server's
// store through the credential cache: a revoked token fails on the very next request on this replica,
// and on every other within the cache's revocation check.
import type { CredentialVerifier, Verification } from '../../shared/identity.ts';
import { tokenDigest } from '../../shared/token-digest.ts';
import type { AccountViews } from '../account-views.ts';
import type { CredentialCache, Loaded } from '../credential-cache.ts';
import { accountPrincipal } from '../principals.ts';
import type { AuthorizationServer } from './authorization-server.ts';
import { audienceRefusal, type ResourceServerSpec } from './resources.ts';

export interface TokenAudience {
  baseUrl: string;
  /** The resource this verifier guards: tokens issued for another are refused (RFC 8707). */
  resource: ResourceServerSpec;
}

/** The one audience of an opaque access token (oidc-provider keeps it as a string). */
const audienceOf = (aud: unknown): string | undefined =>
  typeof aud === 'string' ? aud : Array.isArray(aud) && typeof aud[0] === 'string' ? aud[0] : undefined;

export function accessTokenVerifier(
  provider: AuthorizationServer,
  accounts: AccountViews,
  cache: CredentialCache,
  audience: TokenAudience,
): CredentialVerifier {
  const load = async (token: string): Promise<Loaded<Exclude<Verification, null>> | undefined> => {
    const at = await provider.AccessToken.find(token);
    if (!at || at.isExpired || !at.accountId) return undefined;
    const expiresAt = typeof at.exp === 'number' ? at.exp * 1000 : null;
    const resource = audienceOf(at.aud);
    const refused = audienceRefusal(audience.baseUrl, resource, audience.resource);
    if (refused) return { value: { refused }, expiresAt };
    const view = await accounts.view(at.accountId);
    if (!view) return undefined;
    const scopes = at.scope ? at.scope.split(' ') : [];
    const credential = { type: 'user', credential: 'oauth_access_token', scopes, offices: null } as const;
    const principal = accountPrincipal(view, {
      ...credential,
      ...(resource ? { resource } : {}),
      clientId: at.clientId,
    });
    return { value: principal, expiresAt };
  };
  const keyPrefix = `at:${audience.resource.identifier}:`;
  return {
    name: 'oauth-access-token',
    verify(token) {
      // API keys have their own verifier; opaque access tokens are 43 base64url characters.
      if (token.startsWith('col_') || token.length > 128) return null;
      // Keyed by a hash (never the token) and by the guarded resource, whose answer it is.
      const key = `${keyPrefix}${tokenDigest(token, 'base64url')}`;
      // Remembered: answered now, with no promise.
      const known = cache.peek<Exclude<Verification, null>>(key);
      if (known) return known;
      return cache.through(key, () => load(token)).then((v) => v ?? null);
    },
  };
}
