// The OAuth 2.1 authorization server end to end with a real client library (openid-client) over
// HTTP, approvals scripted through Colony's own sign-in and consent pages, on both databases.
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../support/http-browser.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Json = Record<string, any>;
const REDIRECT = 'http://127.0.0.1:9/callback';
let seq = 0;
const person = () => ({
  name: 'Grace Hopper',
  email: `grace${++seq}-${Date.now()}@example.com`,
  password: 'a long enough passphrase',
});

describe.each(storageTargets)('authorization server on $name', (target) => {
  let s: ListeningServer;
  let config: oauth.Configuration;
  const insecure = { execute: [oauth.allowInsecureRequests] };

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    config = await oauth.dynamicClientRegistration(
      new URL(s.baseUrl),
      {
        client_name: 'Test MCP client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      oauth.None(),
      insecure,
    );
  });
  afterAll(() => s.close());

  /** Signs a new person up, then runs the authorization request to its redirect with their approval. */
  async function authorize(params: Record<string, string>, browser = new HttpBrowser(s.baseUrl)) {
    const verifier = oauth.randomPKCECodeVerifier();
    const state = oauth.randomState();
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    let step = await browser.follow(url.href);
    if (step.url.includes('/signin')) {
      await browser.signUp(person());
      step = await browser.follow(url.href);
    }
    const consent = await step.response.text();
    const uid = /action="\/oauth\/interaction\/([^/"]+)\/confirm"/.exec(consent)?.[1];
    const done = uid ? await browser.submit(`/oauth/interaction/${uid}/confirm`, {}) : step;
    return { callback: new URL(done.url), verifier, state, consent, browser };
  }

  async function tokens(params: Record<string, string>) {
    const { callback, verifier, state } = await authorize(params);
    return oauth.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  const me = (token: string) =>
    fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });

  it('publishes RFC 8414 metadata with PKCE S256, the scopes and the agent_auth block', async () => {
    const discovered = await oauth.discovery(new URL(s.baseUrl), 'anyone', undefined, undefined, insecure);
    const meta = discovered.serverMetadata();
    expect(meta.issuer).toBe(s.baseUrl);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.registration_endpoint).toBe(`${s.baseUrl}/oauth/register`);
    expect(meta.device_authorization_endpoint).toBe(`${s.baseUrl}/oauth/device_authorization`);
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining(['memory:read', 'memory:write', 'offline_access']),
    );
    const rfc8414 = (await (
      await fetch(`${s.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Json;
    expect(rfc8414.token_endpoint).toBe(`${s.baseUrl}/oauth/token`);
    expect(rfc8414.agent_auth).toMatchObject({ api_key_prefix: 'col_', signup_url: `${s.baseUrl}/signup` });
    const prm = (await (await fetch(`${s.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as Json;
    expect(prm).toMatchObject({ resource: `${s.baseUrl}/mcp`, bearer_methods_supported: ['header'] });
  });

  it('issues tokens for a resource through authorization code with PKCE, and /me answers with them', async () => {
    const t = await tokens({
      scope: 'openid email profile memory:read offline_access',
      resource: s.baseUrl,
    });
    expect(t.token_type.toLowerCase()).toBe('bearer');
    // The access token carries the resource's scopes; the OpenID ones show in the ID token.
    expect(t.scope).toBe('memory:read');
    expect(t.refresh_token).toBeTruthy();
    expect(t.claims()?.sub).toMatch(/^acct_/);
    const res = await me(t.access_token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      type: 'user',
      credential: 'oauth_access_token',
      resource: s.baseUrl,
    });
    expect(body.scopes).toEqual(['memory:read']);
    expect(body.account.email).toMatch(/^grace/);
  });

  it('rotates refresh tokens: a new pair works, the used refresh token is refused', async () => {
    const t = await tokens({ scope: 'memory:read offline_access', resource: s.baseUrl });
    const refreshed = await oauth.refreshTokenGrant(config, t.refresh_token ?? '');
    expect((await me(refreshed.access_token)).status).toBe(200);
    expect(refreshed.refresh_token).not.toBe(t.refresh_token);
    await expect(oauth.refreshTokenGrant(config, t.refresh_token ?? '')).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('introspects a live token and revokes it so that it fails closed at once', async () => {
    const t = await tokens({ scope: 'memory:read', resource: s.baseUrl });
    const live = await oauth.tokenIntrospection(config, t.access_token);
    expect(live).toMatchObject({
      active: true,
      scope: 'memory:read',
      aud: s.baseUrl,
      client_id: config.clientMetadata().client_id,
    });
    expect((await me(t.access_token)).status).toBe(200);
    await oauth.tokenRevocation(config, t.access_token);
    const res = await me(t.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await oauth.tokenIntrospection(config, t.access_token)).active).toBe(false);
  });

  it('serves userinfo for a token issued without a resource', async () => {
    const t = await tokens({ scope: 'openid email profile' });
    const sub = t.claims()?.sub ?? '';
    const info = await oauth.fetchUserInfo(config, t.access_token, sub);
    expect(info).toMatchObject({ sub, name: 'Grace Hopper' });
    expect(info.email).toMatch(/^grace/);
  });

  it('answers access_denied at the redirect URI when the person denies', async () => {
    const browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(person());
    const verifier = oauth.randomPKCECodeVerifier();
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'memory:read',
      resource: `${s.baseUrl}/mcp`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    });
    const consent = await (await browser.follow(url.href)).response.text();
    expect(consent).toContain('Read your memory');
    const uid = /action="\/oauth\/interaction\/([^/"]+)\/deny"/.exec(consent)?.[1];
    const done = await browser.submit(`/oauth/interaction/${uid}/deny`, {});
    const callback = new URL(done.url);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('signs a CLI in with the device flow, whose token then creates an API key', async () => {
    const cli = await oauth.discovery(new URL(s.baseUrl), 'colony-cli', undefined, oauth.None(), insecure);
    const started = await oauth.initiateDeviceAuthorization(cli, {
      scope: 'offices:read offices:write keys:write offline_access',
      resource: s.baseUrl,
    });
    expect(started.verification_uri).toBe(`${s.baseUrl}/oauth/device`);
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    const browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(person());
    const input = await (await browser.fetch(started.verification_uri)).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(input)?.[1] ?? '';
    const confirm = await (
      await browser.submit('/oauth/device', { xsrf, user_code: started.user_code })
    ).response.text();
    expect(confirm).toContain(started.user_code);
    const confirmXsrf = /name="xsrf" value="([^"]+)"/.exec(confirm)?.[1] ?? '';
    const consent = await browser.submit('/oauth/device', {
      xsrf: confirmXsrf,
      user_code: started.user_code,
      confirm: 'yes',
    });
    const consentPage = await consent.response.text();
    expect(consentPage).toContain('Colony CLI');
    expect(consentPage).toContain('This request comes from a device');
    const uid = /action="\/oauth\/interaction\/([^/"]+)\/confirm"/.exec(consentPage)?.[1];
    const success = await browser.submit(`/oauth/interaction/${uid}/confirm`, {});
    expect(await success.response.text()).toContain('Device connected');

    const session = await oauth.pollDeviceAuthorizationGrant(cli, { ...started, interval: 0 });
    expect(session.refresh_token).toBeTruthy();
    const created = await fetch(`${s.baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop' }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as Json;
    expect(key.key).toMatch(/^col_[0-9A-Za-z]{38}$/);
    const asKey = await me(key.key);
    expect(asKey.status).toBe(200);
    expect(await asKey.json()).toMatchObject({
      type: 'service_auth',
      credential: 'api_key',
      credentialId: key.id,
    });
  });

  it('refuses to poll a device code nobody approved, and a user code that does not exist', async () => {
    const cli = await oauth.discovery(new URL(s.baseUrl), 'colony-cli', undefined, oauth.None(), insecure);
    const started = await oauth.initiateDeviceAuthorization(cli, {
      scope: 'offices:read',
      resource: s.baseUrl,
    });
    const token = await fetch(`${s.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: started.device_code,
        client_id: 'colony-cli',
      }),
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as Json).error).toBe('authorization_pending');
    const browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(person());
    const input = await (await browser.fetch('/oauth/device')).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(input)?.[1] ?? '';
    const wrong = await browser.submit('/oauth/device', { xsrf, user_code: 'BBBB-BBBB' });
    expect(await wrong.response.text()).toContain('not valid or has expired');
  });

  describe('refusals', () => {
    it('refuses a code exchanged with the wrong PKCE verifier', async () => {
      const { callback, state } = await authorize({ scope: 'memory:read', resource: `${s.baseUrl}/mcp` });
      await expect(
        oauth.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: oauth.randomPKCECodeVerifier(),
          expectedState: state,
        }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses a reused code and revokes what the first exchange issued', async () => {
      const { callback, verifier, state } = await authorize({ scope: 'memory:read', resource: s.baseUrl });
      const first = await oauth.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      expect((await me(first.access_token)).status).toBe(200);
      await expect(
        oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
      expect((await me(first.access_token)).status).toBe(401);
    });

    it('lets only one of two racing exchanges of a code succeed', async () => {
      const { callback, verifier, state } = await authorize({
        scope: 'memory:read',
        resource: `${s.baseUrl}/mcp`,
      });
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, () =>
          oauth.authorizationCodeGrant(config, callback, {
            pkceCodeVerifier: verifier,
            expectedState: state,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('never redirects to an unregistered redirect URI', async () => {
      const browser = new HttpBrowser(s.baseUrl);
      const url = oauth.buildAuthorizationUrl(config, {
        redirect_uri: 'https://evil.example/steal',
        scope: 'memory:read',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      const { url: ended, response } = await browser.follow(url.href);
      expect(ended.startsWith(s.baseUrl)).toBe(true);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('redirect_uri');
    });

    it.each([
      ['without a code challenge', { code_challenge: '' }],
      ['with the plain challenge method', { code_challenge_method: 'plain' }],
      ['for an unknown resource', { resource: 'https://other.example/api' }],
      ['with a response type other than code', { response_type: 'token' }],
    ])('refuses an authorization request %s', async (_what, override) => {
      const browser = new HttpBrowser(s.baseUrl);
      const url = oauth.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'memory:read',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        state: 'x',
      });
      for (const [k, v] of Object.entries(override)) {
        if (v === '') url.searchParams.delete(k);
        else url.searchParams.set(k, v);
      }
      const { url: ended } = await browser.follow(url.href);
      // An error goes back to the client when its redirect URI is known (in the query or the
      // fragment, by response mode), or stays on our error page; a code is never issued.
      const answer = new URL(ended);
      const fragment = new URLSearchParams(answer.hash.slice(1));
      const error =
        answer.searchParams.get('error') ??
        fragment.get('error') ??
        (ended.startsWith(s.baseUrl) ? 'error page' : null);
      expect(error).toBeTruthy();
      expect(answer.searchParams.get('code') ?? fragment.get('code')).toBeNull();
    });

    it('never accepts an access token in the query string', async () => {
      const t = await tokens({ scope: 'memory:read', resource: `${s.baseUrl}/mcp` });
      const res = await fetch(`${s.baseUrl}/api/v1/me?access_token=${t.access_token}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
    });

    it('answers 403 insufficient_scope naming the missing scope', async () => {
      const t = await tokens({ scope: 'memory:read', resource: s.baseUrl });
      const res = await fetch(`${s.baseUrl}/api/v1/offices/acme/members`, {
        headers: { authorization: `Bearer ${t.access_token}` },
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as Json).code).toBe('insufficient_scope');
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect(res.headers.get('www-authenticate')).toContain('scope="offices:read"');
    });
  });
});
