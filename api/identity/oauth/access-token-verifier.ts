// Verifies OAuth access tokens for one of our resource servers by reading the authorization server's
// store, so a revoked token fails on the very next request, on every replica.
import type { CredentialVerifier } from '../../shared/identity.ts';
import type { AccountService } from '../accounts/account-service.ts';
import type { OfficeMembersRepo } from '../offices/office-members-repo.ts';
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
  accounts: AccountService,
  members: OfficeMembersRepo,
  audience: TokenAudience,
): CredentialVerifier {
  return {
    name: 'oauth-access-token',
    async verify(token) {
      // API keys have their own verifier; opaque access tokens are 43 base64url characters.
      if (token.startsWith('col_') || token.length > 128) return null;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId) return null;
      const resource = audienceOf(at.aud);
      const refused = audienceRefusal(audience.baseUrl, resource, audience.resource);
      if (refused) return { refused };
      const account = await accounts.get(at.accountId);
      if (!account) return null;
      const scopes = at.scope ? at.scope.split(' ') : [];
      const credential = { type: 'user', credential: 'oauth_access_token', scopes, offices: null } as const;
      return accountPrincipal(
        account,
        { ...credential, ...(resource ? { resource } : {}), clientId: at.clientId },
        members,
      );
    },
  };
}
