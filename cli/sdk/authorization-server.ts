// The CLI as an OAuth client (openid-client): finds the endpoint's authorization server through its
// RFC 9728 metadata, refreshes and revokes tokens, and turns OAuth failures into sentences.
import * as oauth from 'openid-client';
import { AuthError } from './auth-error.ts';
import { networkCause } from './client.ts';
import { endpointKey } from './endpoint-key.ts';

export { AuthError } from './auth-error.ts';

/** The public client pre-registered by the server (api/identity/oauth/provider-config.ts). */
export const CLI_CLIENT_ID = 'colony-cli';

const tlsOptional = (url: string) =>
  url.startsWith('http://') ? { execute: [oauth.allowInsecureRequests] } : undefined;

/** A sentence for what went wrong talking to the authorization server at `endpoint`. */
export function describeOAuthFailure(err: unknown, endpoint: string): AuthError {
  if (err instanceof AuthError) return err;
  const cause = networkCause(err);
  if (cause) return new AuthError('unreachable', `cannot reach ${endpoint} (${cause})`);
  if (err instanceof oauth.ResponseBodyError) return oauthErrorMessage(err.error, err.error_description);
  // Polling stops when the device code's lifetime is over: openid-client wraps the timer's
  // TimeoutError in a ClientError coded OAUTH_TIMEOUT.
  const { name, code } = err as { name?: string; code?: string };
  if (name === 'TimeoutError' || code === 'OAUTH_TIMEOUT')
    return oauthErrorMessage('expired_token', 'no approval arrived in time');
  if (name === 'AbortError' || code === 'OAUTH_ABORT') return new AuthError('aborted', 'login canceled');
  return new AuthError('failed', `${endpoint}: ${(err as Error)?.message ?? String(err)}`);
}

const messages: Record<string, string> = {
  access_denied: 'the login was denied in the browser',
  expired_token: 'the code expired before it was approved; run `colony login` again',
  invalid_grant: 'the stored login is no longer valid (revoked or expired); run `colony login` again',
  invalid_scope: 'the server refused the scopes asked for',
  invalid_target: 'the server does not issue tokens for this endpoint',
  invalid_client: 'the server does not know the Colony CLI client (colony-cli)',
};

export function oauthErrorMessage(code: string, description?: string): AuthError {
  const known = messages[code];
  const detail = description ? ` (${description})` : '';
  return new AuthError(code, known ? `${known}${detail}` : `${code}${detail}`);
}

export interface ResourceInfo {
  /** The resource indicator tokens are asked for, and the issuer of the authorization server. */
  resource: string;
  issuer: string;
}

/** RFC 9728: `{origin}/.well-known/oauth-protected-resource{path}` names the resource and its AS. */
export async function discoverResource(
  endpoint: string,
  fetcher: typeof fetch = fetch,
): Promise<ResourceInfo> {
  const base = new URL(endpointKey(endpoint));
  const path = base.pathname === '/' ? '' : base.pathname;
  const url = `${base.origin}/.well-known/oauth-protected-resource${path}`;
  let res: Response;
  try {
    res = await fetcher(url, { headers: { accept: 'application/json' } });
  } catch (err) {
    throw describeOAuthFailure(err, endpoint);
  }
  const body = (await res.json().catch(() => null)) as {
    resource?: unknown;
    authorization_servers?: unknown;
  } | null;
  const issuer = Array.isArray(body?.authorization_servers) ? body.authorization_servers[0] : undefined;
  if (!res.ok || typeof body?.resource !== 'string' || typeof issuer !== 'string') {
    throw new AuthError(
      'not_colony',
      `${endpoint} does not look like a Colony server (${url} answered ${res.status} without resource metadata)`,
    );
  }
  return { resource: body.resource, issuer };
}

/** The openid-client configuration of the CLI's public client at `issuer`. */
export async function cliClientConfig(issuer: string): Promise<oauth.Configuration> {
  try {
    return await oauth.discovery(
      new URL(issuer),
      CLI_CLIENT_ID,
      undefined,
      oauth.None(),
      tlsOptional(issuer),
    );
  } catch (err) {
    throw describeOAuthFailure(err, issuer);
  }
}

export async function refreshTokens(
  issuer: string,
  refreshToken: string,
  resource: string,
): Promise<oauth.TokenEndpointResponse> {
  const config = await cliClientConfig(issuer);
  try {
    return await oauth.refreshTokenGrant(config, refreshToken, { resource });
  } catch (err) {
    throw describeOAuthFailure(err, issuer);
  }
}

/** RFC 7009 revocation of each token given (refresh first: it ends the grant's future). */
export async function revokeTokens(
  issuer: string,
  tokens: { token: string; hint: 'refresh_token' | 'access_token' }[],
): Promise<void> {
  const config = await cliClientConfig(issuer);
  for (const { token, hint } of tokens) {
    try {
      await oauth.tokenRevocation(config, token, { token_type_hint: hint });
    } catch (err) {
      throw describeOAuthFailure(err, issuer);
    }
  }
}
