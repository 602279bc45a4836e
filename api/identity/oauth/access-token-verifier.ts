// Verifies OAuth access tokens for our resource servers by reading the authorization server's store,
// so a revoked token fails on the very next request, on every replica.
import type { CredentialVerifier } from '../../shared/identity.ts';
import type { AccountService } from '../accounts/account-service.ts';
import type { OfficeMembersRepo } from '../offices/office-members-repo.ts';
import { accountPrincipal } from '../principals.ts';
import { oidcScopes } from '../scopes.ts';
import type { AuthorizationServer } from './authorization-server.ts';

/** A token issued without a resource is for userinfo: it never carries a resource scope. */
function scopesOf(scope: string | undefined, audience: string | undefined): string[] {
  const granted = scope ? scope.split(' ') : [];
  return audience ? granted : granted.filter((s) => (oidcScopes as readonly string[]).includes(s));
}

export function accessTokenVerifier(
  provider: AuthorizationServer,
  accounts: AccountService,
  members: OfficeMembersRepo,
): CredentialVerifier {
  return {
    name: 'oauth-access-token',
    async verify(token) {
      // API keys have their own verifier; opaque access tokens are 43 base64url characters.
      if (token.startsWith('col_') || token.length > 128) return null;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId) return null;
      const account = await accounts.get(at.accountId);
      if (!account) return null;
      const audience = Array.isArray(at.aud) ? at.aud[0] : at.aud;
      return accountPrincipal(
        account,
        {
          type: 'user',
          credential: 'oauth_access_token',
          scopes: scopesOf(at.scope, audience),
          offices: null,
          ...(audience ? { resource: audience } : {}),
          clientId: at.clientId,
        },
        members,
      );
    },
  };
}
