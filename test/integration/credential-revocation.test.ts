// Verified credentials are cached (api/identity/credential-cache.ts), yet a revocation fails the very
// next request on the replica that made it, and on another replica over the same PostgreSQL within
// its revocation check, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { newPerson, OAuthTestClient } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { type DisposableTarget, postgresTarget, storageTargets } from '../support/storage-targets.ts';

const BOOTSTRAP = 'revocation-bootstrap-token-0123';
const env = {
  COLONY_API_RATE_LIMIT: '100000',
  COLONY_SIGNIN_RATE_LIMIT: '100000',
  COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const me = (baseUrl: string, token: string) => fetch(`${baseUrl}/api/v1/me`, { headers: bearer(token) });

/** A person signed in on `server`, an OAuth client and a token of theirs for the whole API. */
async function signedIn(server: ListeningServer, oauth: OAuthTestClient) {
  const who = newPerson();
  const browser = new HttpBrowser(server.baseUrl);
  await browser.signUp(who);
  const scope = 'keys:write offices:read memory:read';
  const t = await oauth.tokens({ scope, resource: server.baseUrl }, browser);
  return { who, browser, token: t.access_token };
}

async function createKey(baseUrl: string, accessToken: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${baseUrl}/api/v1/keys`, {
    method: 'POST',
    headers: { ...bearer(accessToken), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cached', scopes: ['offices:read'], offices: null, expiresInDays: null }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; key: string };
}

async function revokeKey(baseUrl: string, accessToken: string, id: string) {
  const res = await fetch(`${baseUrl}/api/v1/keys/${id}`, { method: 'DELETE', headers: bearer(accessToken) });
  expect(res.status).toBe(204);
}

/** Two answers in a row, so the second one comes from the cache. */
async function expectVerifiedTwice(baseUrl: string, token: string) {
  expect((await me(baseUrl, token)).status).toBe(200);
  expect((await me(baseUrl, token)).status).toBe(200);
}

async function expectRefused(baseUrl: string, token: string) {
  const res = await me(baseUrl, token);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
}

describe.each(storageTargets)('cached credentials on $name', (target) => {
  let s: ListeningServer;
  let oauth: OAuthTestClient;
  beforeAll(async () => {
    s = await startListeningServer(target, env);
    oauth = await OAuthTestClient.register(s.baseUrl);
  });
  afterAll(() => s.close());

  it('refuses an API key the moment it is revoked through the API', async () => {
    const { token } = await signedIn(s, oauth);
    const { id, key } = await createKey(s.baseUrl, token);
    await expectVerifiedTwice(s.baseUrl, key);
    await revokeKey(s.baseUrl, token, id);
    await expectRefused(s.baseUrl, key);
  });

  it('refuses an access token the moment it is revoked at /oauth/revoke', async () => {
    const { token } = await signedIn(s, oauth);
    await expectVerifiedTwice(s.baseUrl, token);
    await oauth.revoke(token);
    await expectRefused(s.baseUrl, token);
  });

  it('refuses the access tokens of a connected app the moment its grant is revoked', async () => {
    const { token, browser } = await signedIn(s, oauth);
    await expectVerifiedTwice(s.baseUrl, token);
    const page = await (await browser.fetch('/account')).text();
    const grantId = /action="\/account\/apps\/([^/"]+)\/revoke"/.exec(page)?.[1];
    expect(grantId).toBeDefined();
    const { response } = await browser.submit(`/account/apps/${grantId}/revoke`, {});
    expect(response.status).toBe(200);
    await expectRefused(s.baseUrl, token);
  });

  it('takes an office away from a cached key the moment its owner leaves the office', async () => {
    const { token, who } = await signedIn(s, oauth);
    const office = `rev-${Date.now().toString(36)}`;
    const join = await fetch(`${s.baseUrl}/api/v1/offices/${office}/members`, {
      method: 'PUT',
      headers: { ...bearer(BOOTSTRAP), 'content-type': 'application/json' },
      body: JSON.stringify({ email: who.email, role: 'operator' }),
    });
    expect(join.status).toBe(201);
    const { accountId } = (await join.json()) as { accountId: string };
    const { key } = await createKey(s.baseUrl, token);
    const members = () =>
      fetch(`${s.baseUrl}/api/v1/offices/${office}/members`, { headers: bearer(key) }).then((r) => r.status);
    expect(await members()).toBe(200);
    expect(await members()).toBe(200);
    const leave = await fetch(`${s.baseUrl}/api/v1/offices/${office}/members/${accountId}`, {
      method: 'DELETE',
      headers: bearer(BOOTSTRAP),
    });
    expect(leave.status).toBe(204);
    expect(await members()).toBe(403);
  });
});

describe('two replicas over one PostgreSQL', () => {
  // The second replica serves the first one's base URL, as replicas behind one address do.
  const CHECK_MS = 200;
  let made: Awaited<ReturnType<DisposableTarget['create']>>;
  let a: ListeningServer;
  let b: ListeningServer;
  let oauth: OAuthTestClient;
  beforeAll(async () => {
    made = await postgresTarget.create();
    const shared: DisposableTarget = {
      name: 'postgres',
      create: async () => ({ target: made.target, dispose: async () => {} }),
    };
    const replicaEnv = { ...env, COLONY_REVOCATION_CHECK_MS: String(CHECK_MS) };
    a = await startListeningServer(shared, replicaEnv);
    b = await startListeningServer(shared, { ...replicaEnv, COLONY_BASE_URL: a.baseUrl });
    oauth = await OAuthTestClient.register(a.baseUrl);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await made?.dispose();
  });

  it('refuses a revoked API key on its replica at once, and on the other within the check', async () => {
    const { token } = await signedIn(a, oauth);
    const { id, key } = await createKey(a.baseUrl, token);
    await expectVerifiedTwice(b.baseUrl, key);
    await revokeKey(a.baseUrl, token, id);
    await expectRefused(a.baseUrl, key);
    await eventually(async () => (await me(b.baseUrl, key)).status === 401, 10 * CHECK_MS + 5_000);
  });

  it('refuses a revoked access token on its replica at once, and on the other within the check', async () => {
    const { token } = await signedIn(a, oauth);
    await expectVerifiedTwice(b.baseUrl, token);
    await oauth.revoke(token);
    await expectRefused(a.baseUrl, token);
    await eventually(async () => (await me(b.baseUrl, token)).status === 401, 10 * CHECK_MS + 5_000);
  });
});
