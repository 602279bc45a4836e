// RFC 8628 device authorization for `colony login`: start, show the person the code, poll until they
// approve (openid-client honours `interval` and `slow_down`), and answer the login to store.
import * as oauth from 'openid-client';
import { cliClientConfig, describeOAuthFailure, discoverResource } from './authorization-server.ts';
import type { StoredLogin } from './credential-store.ts';
import { loginFromTokens } from './session-expiry.ts';

/**
 * What the CLI asks for unless told otherwise: every scope its commands use (offices, backups
 * without the destructive `backups:admin`, managing keys) plus `offline_access` for a refresh token.
 */
export const DEFAULT_LOGIN_SCOPES = [
  'offices:read',
  'offices:write',
  'backups:read',
  'backups:write',
  'keys:write',
  'offline_access',
] as const;

export interface DevicePrompt {
  /** The page to open, with the code already filled in when the server offers that. */
  url: string;
  verificationUri: string;
  userCode: string;
  expiresInSeconds: number;
}

export interface DeviceLoginOptions {
  endpoint: string;
  scope?: string;
  /** Shows the person where to go; called once, before polling starts. */
  prompt: (p: DevicePrompt) => void;
  signal?: AbortSignal;
  now?: () => number;
}

export async function deviceLogin(opts: DeviceLoginOptions): Promise<StoredLogin> {
  const { resource, issuer } = await discoverResource(opts.endpoint);
  const config = await cliClientConfig(issuer);
  const scope = opts.scope ?? DEFAULT_LOGIN_SCOPES.join(' ');
  try {
    const started = await oauth.initiateDeviceAuthorization(config, { scope, resource });
    opts.prompt({
      url: started.verification_uri_complete ?? started.verification_uri,
      verificationUri: started.verification_uri,
      userCode: started.user_code,
      expiresInSeconds: started.expires_in,
    });
    const tokens = await oauth.pollDeviceAuthorizationGrant(
      config,
      started,
      { resource },
      opts.signal ? { signal: opts.signal } : undefined,
    );
    return loginFromTokens(
      tokens,
      { issuer, resource, clientId: config.clientMetadata().client_id, scope },
      (opts.now ?? Date.now)(),
    );
  } catch (err) {
    throw describeOAuthFailure(err, issuer);
  }
}
