// Verifies OAuth access tokens for our resource servers by reading the authorization server's store,
// so a revoked token fails on the very next request, on every replica.
import type { CredentialVerifier } from '../../shared/identity.ts';
import type { OfficeMembersRepo } from '../../storage/office-members-repo.ts';
import type { AccountService } from '../accounts/account-service.ts';
import { accountPrincipal } from '../principals.ts';
import type { AuthorizationServer } from './authorization-server.ts';

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
          scopes: at.scope ? at.scope.split(' ') : [],
          offices: null,
          ...(audience ? { resource: audience } : {}),
          clientId: at.clientId,
        },
        members,
      );
    },
  };
}
