// The provider side of the Connect flow through openid-client: the authorization URL (code + PKCE
// S256), the code exchange and the refresh grant. No token ever leaves these functions but by return.
import * as oidc from 'openid-client';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { OAuthClient } from './oauth-clients.ts';

type OAuthSettings = NonNullable<IntegrationManifest['oauth']>;

export interface Tokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms; null when the provider did not say (the token is then never refreshed early). */
  expiresAt: number | null;
}

/** A refusal by the provider (its OAuth error code), or a failure to reach it. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export function providerConfig(oauth: OAuthSettings, client: OAuthClient): oidc.Configuration {
  const issuer = oauth.issuer ?? new URL(oauth.authorizationUrl).origin;
  const config = new oidc.Configuration(
    { issuer, authorization_endpoint: oauth.authorizationUrl, token_endpoint: oauth.tokenUrl },
    client.clientId,
    undefined,
    client.clientSecret ? oidc.ClientSecretBasic(client.clientSecret) : oidc.None(),
  );
  // The schema admits plain http only for loopback providers.
  if ([oauth.authorizationUrl, oauth.tokenUrl].some((u) => u.startsWith('http:')))
    oidc.allowInsecureRequests(config);
  return config;
}

export async function authorizationRequest(
  config: oidc.Configuration,
  oauth: OAuthSettings,
  redirectUri: string,
): Promise<{ url: URL; state: string; codeVerifier: string }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    ...oauth.authorizationParams,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: oauth.scopes.join(' '),
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url, state, codeVerifier };
}

function tokensOf(
  r: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  now: number,
  previousRefresh?: string,
): Tokens {
  const seconds = r.expiresIn();
  return {
    accessToken: r.access_token,
    refreshToken: r.refresh_token ?? previousRefresh,
    expiresAt: seconds === undefined ? null : now + seconds * 1000,
  };
}

function providerError(err: unknown): ProviderError {
  if (err instanceof oidc.ResponseBodyError)
    return new ProviderError(err.error, err.error_description ?? err.error);
  if (err instanceof oidc.AuthorizationResponseError)
    return new ProviderError(err.error, err.error_description ?? err.error);
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError('provider_unreachable', message);
}

/** Exchanges the callback's code; `callbackUrl` is the full URL the provider redirected to. */
export async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  checks: { state: string; codeVerifier: string },
  now: number,
): Promise<Tokens> {
  try {
    const r = await oidc.authorizationCodeGrant(config, callbackUrl, {
      expectedState: checks.state,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: false,
    });
    return tokensOf(r, now);
  } catch (err) {
    throw providerError(err);
  }
}

export async function refreshTokens(
  config: oidc.Configuration,
  refreshToken: string,
  now: number,
): Promise<Tokens> {
  try {
    return tokensOf(await oidc.refreshTokenGrant(config, refreshToken), now, refreshToken);
  } catch (err) {
    throw providerError(err);
  }
}
