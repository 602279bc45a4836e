// The oidc-provider configuration: which grants, features, resources and pages Colony's AS offers.
import {
  type Configuration,
  errors,
  interactionPolicy,
  type KoaContextWithOIDC,
  type ResourceServer,
} from 'oidc-provider';
import type { Account } from '../accounts/account.ts';
import { scopesSupported } from '../scopes.ts';
import {
  authorizationErrorPage,
  deviceCodeInputPage,
  deviceConfirmPage,
  deviceSuccessPage,
} from './as-pages.ts';
import { ACCESS_TOKEN_TTL_SECONDS, findResourceServer } from './resources.ts';
import { defaultResourceFor, resourceList, ungrantableScope } from './scope-grants.ts';
import type { AuthorizationServerKeys } from './signing-keys.ts';
import type { StorageAdapter } from './storage-adapter.ts';

export const CLI_CLIENT_ID = 'colony-cli';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const oauthRoutes = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  device_authorization: '/oauth/device_authorization',
  code_verification: '/oauth/device',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
} as const;

const DAY = 24 * 3600;

export interface ProviderDeps {
  baseUrl: string;
  keys: AuthorizationServerKeys;
  adapter: (model: string) => StorageAdapter;
  findAccount: (id: string) => Promise<Account | undefined>;
  /** The account of the Colony browser session behind this request, if any. */
  browserAccountId: (ctx: KoaContextWithOIDC) => Promise<string | undefined>;
}

/**
 * Signing in happens on Colony's own pages, so the authorization server's session must belong to
 * the account signed in there: after a sign-out or a switch of account it asks again.
 */
function loginPolicy(deps: ProviderDeps) {
  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(
    new interactionPolicy.Check(
      'colony_session',
      'the browser is not signed in to Colony as this account',
      async (ctx) => {
        if (ctx.oidc.result?.login) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        const signedIn = await deps.browserAccountId(ctx);
        return signedIn !== undefined && signedIn === ctx.oidc.session?.accountId
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}

/** Where a client asks for scopes; later steps (resume, token) only narrow what was granted here. */
const requestRoutes = new Set(['authorization', 'device_authorization', 'pushed_authorization_request']);

/**
 * A request for a scope its tokens would not carry is refused (invalid_scope) rather than shown on
 * the consent page and silently dropped (docs/decisions.md).
 */
function refuseUngrantable(ctx: KoaContextWithOIDC, baseUrl: string, resources: readonly string[]) {
  if (!requestRoutes.has(ctx.oidc.route)) return;
  const bad = ungrantableScope(baseUrl, ctx.oidc.params?.scope as string | undefined, resources);
  if (bad) throw new errors.InvalidScope(bad.reason, bad.scope);
}

async function resourceServerInfo(
  ctx: KoaContextWithOIDC,
  baseUrl: string,
  indicator: string,
): Promise<ResourceServer> {
  const rs = findResourceServer(baseUrl, indicator);
  if (!rs)
    throw new errors.InvalidTarget(
      `unknown resource ${indicator}; see ${baseUrl}/.well-known/oauth-protected-resource`,
    );
  refuseUngrantable(ctx, baseUrl, resourceList(ctx.oidc.params?.resource));
  return {
    scope: rs.scopes.join(' '),
    audience: rs.identifier,
    accessTokenFormat: 'opaque',
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
  };
}

export function providerConfiguration(deps: ProviderDeps): Configuration {
  const secure = deps.baseUrl.startsWith('https://');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure };
  return {
    adapter: deps.adapter,
    jwks: deps.keys.jwks as Configuration['jwks'],
    cookies: { keys: deps.keys.cookieKeys, long: cookie, short: cookie },
    routes: oauthRoutes,
    // Every scope, not only the OpenID ones: registration checks a client's `scope` metadata against
    // this list, and MCP clients register with the resource scopes they want (memory:read, …).
    // Which scopes an access token carries is still decided per resource (resourceServerInfo).
    scopes: [...scopesSupported],
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    async findAccount(_ctx, sub) {
      const account = await deps.findAccount(sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        async claims() {
          return { sub: account.id, name: account.name, email: account.email, email_verified: false };
        },
      };
    },
    clients: [
      {
        client_id: CLI_CLIENT_ID,
        client_name: 'Colony CLI',
        token_endpoint_auth_method: 'none',
        grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientBasedCORS: () => true,
    interactions: {
      policy: loginPolicy(deps),
      url: async (_ctx, interaction) => `/oauth/interaction/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      // Our resource servers check bearer tokens only; a sender-constrained token would be weakened.
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (ctx, _client, oneOf) => {
          if (oneOf) return oneOf[0];
          const resource = defaultResourceFor(deps.baseUrl, ctx.oidc.params?.scope as string | undefined);
          if (resource === undefined) refuseUngrantable(ctx, deps.baseUrl, []);
          return resource;
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: (ctx, indicator) => resourceServerInfo(ctx, deps.baseUrl, indicator),
      },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (ctx, form, _out, err) => {
          ctx.body = deviceCodeInputPage(
            form,
            err ? 'That code is not valid or has expired. Check your device and try again.' : undefined,
          );
        },
        userCodeConfirmSource: async (ctx, form, client, _info, userCode) => {
          ctx.body = deviceConfirmPage(form, client.clientName ?? client.clientId, userCode);
        },
        successSource: async (ctx) => {
          const client = ctx.oidc.client;
          ctx.body = deviceSuccessPage(client?.clientName ?? client?.clientId ?? 'The device');
        },
      },
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = authorizationErrorPage(out);
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      RefreshToken: 30 * DAY,
      Session: 14 * DAY,
      Grant: 365 * DAY,
      ClientCredentials: 600,
      BackchannelAuthenticationRequest: 600,
    },
  };
}
