// The consent page lists exactly what the issued tokens carry; a request for a scope they would not
// carry is refused with invalid_scope. A real OAuth client (openid-client), on both databases.
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthTestClient, TEST_REDIRECT } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

/** The scopes a consent page lists, in its `<ul id="scopes">`. */
function listedScopes(page: string): string[] {
  const list = /<ul id="scopes">([\s\S]*?)<\/ul>/.exec(page)?.[1] ?? '';
  return [...list.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1] ?? '').sort();
}

const sorted = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();

describe.each(storageTargets)('consent scopes on $name', (target) => {
  let s: ListeningServer;
  let client: OAuthTestClient;
  const insecure = { execute: [oauth.allowInsecureRequests] };

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    client = await OAuthTestClient.register(s.baseUrl, 'Consent test client');
  });
  afterAll(() => s.close());

  /** A new person approves `params`; what the page listed, and the tokens the code bought. */
  async function approved(params: Record<string, string>) {
    const { callback, verifier, state, consent } = await client.authorize(params, await client.person());
    const tokens = await oauth.authorizationCodeGrant(client.config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const introspected = await oauth.tokenIntrospection(client.config, tokens.access_token);
    return { listed: listedScopes(consent ?? ''), tokens, introspected };
  }

  it.each([
    ['memory scopes for /mcp', { scope: 'memory:read memory:write', resource: '/mcp' }],
    ['resource scopes for the base URL', { scope: 'offices:read backups:read memory:read', resource: '' }],
    ['resource scopes without a resource indicator', { scope: 'memory:read keys:write' }],
  ])('lists exactly the scopes the access token carries: %s', async (_what, req) => {
    const params: Record<string, string> = { scope: req.scope };
    if ('resource' in req) params.resource = `${s.baseUrl}${req.resource}`;
    const { listed, introspected } = await approved(params);
    expect(listed).toEqual(sorted(req.scope));
    expect(sorted(introspected.scope)).toEqual(listed);
  });

  it('lists sign-in scopes beside the resource ones, each reflected in what is issued', async () => {
    const { listed, tokens, introspected } = await approved({
      scope: 'openid email memory:read offline_access',
      resource: `${s.baseUrl}/mcp`,
    });
    expect(listed).toEqual(['email', 'memory:read', 'offline_access', 'openid']);
    expect(introspected.scope).toBe('memory:read');
    expect(tokens.claims()?.sub).toMatch(/^acct_/);
    expect(tokens.claims()?.email).toMatch(/@example\.com$/);
    expect(tokens.refresh_token).toBeTruthy();
  });

  it.each([
    ['a scope the resource does not accept', { scope: 'memory:read offices:read', resource: '/mcp' }],
    ['a scope Colony does not know', { scope: 'memory:read admin:everything', resource: '' }],
    ['an OpenID scope without openid', { scope: 'email memory:read', resource: '/mcp' }],
  ])('refuses %s with invalid_scope at the redirect URI, before any consent page', async (_what, req) => {
    const { callback, consent, state } = await client.authorize(
      { scope: req.scope, resource: `${s.baseUrl}${req.resource}` },
      await client.person(),
    );
    expect(consent).toBeUndefined();
    expect(callback.href.startsWith(TEST_REDIRECT)).toBe(true);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('refuses a device authorization for a scope the resource does not accept', async () => {
    const cli = await oauth.discovery(new URL(s.baseUrl), 'colony-cli', undefined, oauth.None(), insecure);
    await expect(
      oauth.initiateDeviceAuthorization(cli, { scope: 'offices:read', resource: `${s.baseUrl}/mcp` }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
  });
});
