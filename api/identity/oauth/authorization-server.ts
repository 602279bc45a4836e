// Colony's OAuth 2.1 / OpenID Connect authorization server: an oidc-provider instance on our storage.
import { unsign } from '@fastify/cookie';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import type { AccountService } from '../accounts/account-service.ts';
import type { CookiePolicy } from '../accounts/session-cookie.ts';
import type { IdentityRepos } from '../identity-repos.ts';
import { scopesSupported } from '../scopes.ts';
import { agentAuthBlock } from './agent-auth.ts';
import { oauthRoutes, providerConfiguration } from './provider-config.ts';
import { loadAuthorizationServerKeys } from './signing-keys.ts';
import { StorageAdapter } from './storage-adapter.ts';

export interface AuthorizationServerDeps {
  baseUrl: string;
  environment: 'production' | 'sandbox';
  repos: IdentityRepos;
  accounts: AccountService;
  cookiePolicy: CookiePolicy;
  cookieSecret: string;
  now: () => number;
  /** Told after a token or grant is revoked (the credential cache forgets what it knew). */
  onRevoke?: () => Promise<void>;
}

export type AuthorizationServer = Provider;

function wantsOfflineAccess(query: Record<string, unknown>): boolean {
  return (
    typeof query.scope === 'string' &&
    query.scope.split(' ').includes('offline_access') &&
    query.prompt === undefined
  );
}

/** The account of the Colony session cookie carried by a request the provider is handling. */
function browserAccountResolver(deps: AuthorizationServerDeps) {
  return async (ctx: KoaContextWithOIDC): Promise<string | undefined> => {
    const raw = ctx.cookies.get(deps.cookiePolicy.name);
    if (!raw) return undefined;
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    const unsigned = unsign(value, deps.cookieSecret);
    if (!unsigned.valid || !unsigned.value) return undefined;
    return (await deps.accounts.resolveSession(unsigned.value))?.account.id;
  };
}

export async function createAuthorizationServer(deps: AuthorizationServerDeps): Promise<AuthorizationServer> {
  const keys = await loadAuthorizationServerKeys(deps.repos.serverKeys, deps.now());
  const provider = new Provider(
    deps.baseUrl,
    providerConfiguration({
      baseUrl: deps.baseUrl,
      keys,
      adapter: (model) => new StorageAdapter(model, deps.repos.oauth, deps.now, deps.onRevoke),
      findAccount: (id) => deps.accounts.get(id),
      browserAccountId: browserAccountResolver(deps),
    }),
  );
  // The forwarding route sets X-Forwarded-* itself (api/identity/oauth/plugin.ts), never the client.
  provider.proxy = true;
  const agentAuth = agentAuthBlock(deps.baseUrl, deps.environment);
  provider.use(async (ctx, next) => {
    // OpenID Connect grants offline_access only with prompt=consent; OAuth clients (MCP ones) do
    // not know that rule, so asking for offline_access always shows the consent page instead.
    if (ctx.path === oauthRoutes.authorization && ctx.method === 'GET' && wantsOfflineAccess(ctx.query)) {
      ctx.query = { ...ctx.query, prompt: 'consent' };
    }
    await next();
    if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      Object.assign(ctx.body, { scopes_supported: scopesSupported, agent_auth: agentAuth });
    }
  });
  return provider;
}
