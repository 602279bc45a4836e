// API keys from the account page and their use as office-bound operator credentials, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectBrowser } from '../support/browser.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { sqliteTarget, storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'keys-bootstrap-token-0123456789';
let seq = 0;
const person = () => ({
  name: 'Katherine Johnson',
  email: `kj${++seq}@example.com`,
  password: 'a long enough passphrase',
});
const DAY = 24 * 3600 * 1000;

describe.each(storageTargets)('API keys on $name', (target) => {
  let s: TestServer;
  let clock = Date.now();
  beforeAll(async () => {
    s = await startTestServerOn(target, { COLONY_BOOTSTRAP_TOKEN: TOKEN }, { now: () => clock });
  });
  afterAll(() => s.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const me = (token: string) => s.app.inject({ url: '/api/v1/me', headers: bearer(token) });
  const addMember = (office: string, email: string, role = 'operator') =>
    s.app.inject({
      method: 'PUT',
      url: `/api/v1/offices/${office}/members`,
      headers: bearer(TOKEN),
      payload: { email, role },
    });

  async function signedIn() {
    const b = new InjectBrowser(s.app);
    const who = person();
    await b.signUp(who);
    return { b, who };
  }

  async function createKey(b: InjectBrowser, fields: Record<string, string | string[]>) {
    await b.get('/account');
    const form = new URLSearchParams({ _csrf: b.cookies.get('colony_csrf') ?? '' });
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
    const res = await b.request({
      method: 'POST',
      url: '/account/keys',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    // A created key is shown by the page the POST redirects to (post-redirect-get).
    const location = res.statusCode === 303 ? res.headers.location : undefined;
    const page = location ? await b.get(String(location)) : undefined;
    return { res, page, key: /<p class="secret" id="api-key">([^<]+)<\/p>/.exec(page?.body ?? '')?.[1] };
  }

  it('shows a new key once, lists only its hint, and the key answers /me as an operator credential', async () => {
    const { b, who } = await signedIn();
    await addMember('acme', who.email, 'owner');
    const { res, page, key } = await createKey(b, {
      name: 'ci deploys',
      scope: ['offices:read', 'offices:write'],
    });
    expect(res.statusCode).toBe(303);
    expect(page?.statusCode).toBe(200);
    expect(page?.headers['cache-control']).toBe('no-store');
    expect(key).toMatch(/^col_[0-9A-Za-z]{38}$/);
    const account = await b.get('/account');
    expect(account.body).toContain('ci deploys');
    expect(account.body).toContain(`${key?.slice(0, 10)}…`);
    expect(account.body).not.toContain(key);
    const profile = await me(key ?? '');
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toMatchObject({
      type: 'service_auth',
      credential: 'api_key',
      scopes: ['offices:read', 'offices:write'],
      offices: ['acme'],
      account: { email: who.email, memberships: [{ officeId: 'acme', role: 'owner' }] },
    });
  });

  it('binds a key to chosen offices: 403 for any other, and membership still decides', async () => {
    const { b, who } = await signedIn();
    await addMember('north', who.email);
    await addMember('south', who.email);
    const { key = '' } = await createKey(b, {
      name: 'north only',
      scope: 'offices:read',
      binding: 'selected',
      office: 'north',
    });
    const list = (office: string) =>
      s.app.inject({ url: `/api/v1/offices/${office}/members`, headers: bearer(key) });
    expect((await list('north')).statusCode).toBe(200);
    const other = await list('south');
    expect(other.statusCode).toBe(403);
    expect(other.json().code).toBe('forbidden');
    expect(
      (await s.app.inject({ url: '/api/v1/offices/south/integrations', headers: bearer(key) })).statusCode,
    ).toBe(403);
    const { accountId } = (await addMember('north', who.email)).json();
    const removed = await s.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/north/members/${accountId}`,
      headers: bearer(TOKEN),
    });
    expect(removed.statusCode).toBe(204);
    expect((await list('north')).statusCode).toBe(403);
  });

  it('refuses to bind a key to an office its creator is not a member of', async () => {
    const { b } = await signedIn();
    const { res, key } = await createKey(b, {
      name: 'x',
      scope: 'offices:read',
      binding: 'selected',
      office: 'acme',
    });
    expect(res.statusCode).toBe(403);
    expect(key).toBeUndefined();
    expect(res.body).toContain('not a member of office(s) acme');
  });

  it('re-renders the form for a key without scopes or without a name', async () => {
    const { b } = await signedIn();
    expect((await createKey(b, { name: 'no scopes' })).res.statusCode).toBe(400);
    const noName = await createKey(b, { name: '', scope: 'offices:read' });
    expect(noName.res.statusCode).toBe(400);
    expect(noName.res.body).toContain('Name is required');
  });

  it('answers 403 insufficient_scope when a key lacks the scope of an operation', async () => {
    const { b, who } = await signedIn();
    await addMember('acme', who.email);
    const { key = '' } = await createKey(b, { name: 'read only', scope: 'offices:read' });
    const res = await s.app.inject({
      method: 'PUT',
      url: '/api/v1/offices/acme/members',
      headers: bearer(key),
      payload: { email: who.email },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toContain('scope="offices:write"');
    const keys = await s.app.inject({ url: '/api/v1/keys', headers: bearer(key) });
    expect(keys.statusCode).toBe(403);
  });

  it('lets an owner manage members with a key, and an operator not', async () => {
    const owner = await signedIn();
    const operator = await signedIn();
    await addMember('shared', owner.who.email, 'owner');
    await addMember('shared', operator.who.email, 'operator');
    const ownerKey =
      (await createKey(owner.b, { name: 'o', scope: ['offices:read', 'offices:write'] })).key ?? '';
    const operatorKey =
      (await createKey(operator.b, { name: 'p', scope: ['offices:read', 'offices:write'] })).key ?? '';
    const put = (key: string, email: string) =>
      s.app.inject({
        method: 'PUT',
        url: '/api/v1/offices/shared/members',
        headers: bearer(key),
        payload: { email },
      });
    const newcomer = await signedIn();
    expect((await put(operatorKey, newcomer.who.email)).statusCode).toBe(403);
    expect((await put(ownerKey, newcomer.who.email)).statusCode).toBe(201);
  });

  it('fails closed the moment a key is revoked', async () => {
    const { b } = await signedIn();
    const { key = '' } = await createKey(b, { name: 'short-lived-key', scope: 'offices:read' });
    expect((await me(key)).statusCode).toBe(200);
    const page = await b.get('/account');
    const id = /id="key-(key_[a-z2-7]{24})"/.exec(page.body)?.[1];
    const revoke = await b.submit(`/account/keys/${id}/revoke`, {});
    expect(revoke.statusCode).toBe(303);
    const after = await me(key);
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await b.get('/account')).body).not.toContain('short-lived-key');
  });

  it('stops accepting a key when it expires, and never one with a wrong checksum', async () => {
    const { b } = await signedIn();
    const { key = '' } = await createKey(b, { name: 'month', scope: 'offices:read', expires: '30' });
    const started = clock;
    try {
      clock = started + 29 * DAY;
      expect((await me(key)).statusCode).toBe(200);
      clock = started + 31 * DAY;
      expect((await me(key)).statusCode).toBe(401);
    } finally {
      clock = started;
    }
    const typo = `${key.slice(0, 12)}${key[12] === 'x' ? 'y' : 'x'}${key.slice(13)}`;
    expect((await me(typo)).statusCode).toBe(401);
  });

  it('refuses a key revocation or creation posted from another site', async () => {
    const { b } = await signedIn();
    await b.get('/account');
    const res = await b.request({
      method: 'POST',
      url: '/account/keys',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: new URLSearchParams({
        _csrf: b.cookies.get('colony_csrf') ?? '',
        name: 'x',
        scope: 'offices:read',
      }).toString(),
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('API keys in the sandbox', () => {
  it('start col_test_ and a production-shaped key is refused there', async () => {
    const s = await startTestServerOn(sqliteTarget, { COLONY_ENVIRONMENT: 'sandbox' });
    try {
      const b = new InjectBrowser(s.app);
      await b.signUp(person());
      await b.get('/account');
      const res = await b.submit('/account/keys', { name: 'sandbox', scope: 'offices:read' });
      const shown = await b.get(String(res.headers.location));
      const key = /id="api-key">([^<]+)</.exec(shown.body)?.[1] ?? '';
      expect(key).toMatch(/^col_test_[0-9A-Za-z]{38}$/);
      expect(
        (await s.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}` } })).statusCode,
      ).toBe(200);
      const production = `col_${key.slice('col_test_'.length)}`;
      expect(
        (await s.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${production}` } }))
          .statusCode,
      ).toBe(401);
    } finally {
      await s.close();
    }
  });
});
