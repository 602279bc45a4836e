// Accounts, browser sessions and the identity pages through the real server, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { SESSION_TTL_MS } from '../../api/identity/accounts/account-service.ts';
import { currentAccount } from '../../api/identity/accounts/current-account.ts';
import { canActOnOffice } from '../../api/identity/offices/office-access.ts';
import { buildServer } from '../../api/server.ts';
import { InjectBrowser } from '../support/browser.ts';
import { startTestServerOn, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { sqliteTarget, storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'identity-bootstrap-token-0123456789';
const PASSWORD = 'a long enough passphrase';
let seq = 0;
const person = (name = 'Ada Lovelace') => ({ name, email: `ada${++seq}@example.com`, password: PASSWORD });

describe.each(storageTargets)('accounts on $name', (target) => {
  let s: TestServer;
  let clock = Date.now();
  beforeAll(async () => {
    s = await startTestServerOn(target, { COLONY_BOOTSTRAP_TOKEN: TOKEN }, { now: () => clock });
  });
  afterAll(() => s.close());
  const browser = () => new InjectBrowser(s.app);

  describe('/signup', () => {
    it('shows the account form with a CSRF token beside the plans', async () => {
      const b = browser();
      const res = await b.get('/signup?return_to=%2Fbilling%2Fcs_1');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<form class="card" method="post" action="/signup"');
      expect(res.body).toContain(`name="_csrf" value="${b.cookies.get('colony_csrf')}"`);
      expect(res.body).toContain('name="return_to" value="/billing/cs_1"');
      expect(res.body).toContain('id="plan-pro"');
    });

    it('creates the account, signs the browser in and returns it to return_to', async () => {
      const b = browser();
      const who = person();
      const res = await b.signUp(who, '/billing/cs_1?step=2');
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/billing/cs_1?step=2');
      const cookie = (
        res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string }[]
      ).find((c) => c.name === 'colony_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      const account = await b.get('/account');
      expect(account.statusCode).toBe(200);
      expect(account.body).toContain(who.email);
      expect(account.body).toMatch(/<code id="account-id">acct_[a-z2-7]{24}<\/code>/);
    });

    it('sends the browser to /account when return_to is not a same-origin path', async () => {
      const res = await browser().signUp(person(), '//evil.example/');
      expect(res.headers.location).toBe('/account');
    });

    it('re-renders the form with a message per bad field and creates nothing', async () => {
      const b = browser();
      await b.get('/signup');
      const res = await b.submit('/signup', { name: '', email: 'not-an-email', password: 'short' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('Name is required');
      expect(res.body).toContain('Email is not an email address');
      expect(res.body).toContain('Password must be at least 10 characters');
      expect(res.body).toContain('value="not-an-email"');
      expect(b.cookies.has('colony_session')).toBe(false);
      expect(await s.app.colony.identity.accounts.byEmail('not-an-email')).toBeUndefined();
    });

    it('refuses a second account for the same email whatever its case', async () => {
      const who = person();
      expect((await browser().signUp(who)).statusCode).toBe(303);
      const again = await browser().signUp({ ...who, email: who.email.toUpperCase() });
      expect(again.statusCode).toBe(409);
      expect(again.body).toContain('already exists');
    });

    it('creates exactly one account when the same email signs up many times at once', async () => {
      const who = person();
      const results = await Promise.all(Array.from({ length: 6 }, () => browser().signUp(who)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([303, 409, 409, 409, 409, 409]);
    });

    it('refuses a post without the browser’s CSRF token or from another origin', async () => {
      const b = browser();
      await b.get('/signup');
      const forged = await b.request({
        method: 'POST',
        url: '/signup',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...person(), _csrf: 'x'.repeat(32) }).toString(),
      });
      expect(forged.statusCode).toBe(403);
      const crossSite = await b.submit('/signup', person(), { origin: 'https://evil.example' });
      expect(crossSite.statusCode).toBe(403);
      const sameSite = await b.submit('/signup', person(), { origin: TEST_BASE_URL });
      expect(sameSite.statusCode).toBe(303);
    });
  });

  describe('/signin and /signout', () => {
    it('signs in with the right password, case-insensitively on the email', async () => {
      const who = person();
      await browser().signUp(who);
      const b = browser();
      await b.get('/signin?return_to=%2Faccount%3Ftab%3Dkeys');
      const res = await b.submit('/signin', {
        email: who.email.toUpperCase(),
        password: PASSWORD,
        return_to: '/account?tab=keys',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account?tab=keys');
      expect((await b.get('/account')).body).toContain(who.email);
    });

    it('answers a wrong password and an unknown email alike, with 401 and no session', async () => {
      const who = person();
      await browser().signUp(who);
      for (const email of [who.email, 'nobody@example.com']) {
        const b = browser();
        await b.get('/signin');
        const res = await b.submit('/signin', { email, password: 'wrong password!' });
        expect(res.statusCode).toBe(401);
        expect(res.body).toContain('The email or password is wrong.');
        expect(b.cookies.has('colony_session')).toBe(false);
      }
    });

    it('ends the session on the server: the old cookie no longer signs anyone in', async () => {
      const b = browser();
      await b.signUp(person());
      const stolen = b.cookies.get('colony_session');
      const out = await b.submit('/signout', {});
      expect(out.statusCode).toBe(303);
      expect(out.headers.location).toBe('/signin');
      expect(b.cookies.has('colony_session')).toBe(false);
      const replay = await s.app.inject({ url: '/account', headers: { cookie: `colony_session=${stolen}` } });
      expect(replay.statusCode).toBe(303);
    });

    it('limits password attempts per address', async () => {
      const b = browser();
      await b.get('/signin');
      const ip = '203.0.113.9';
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await b.request({
          method: 'POST',
          url: '/signin',
          remoteAddress: ip,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            _csrf: b.cookies.get('colony_csrf') ?? '',
            email: `guess${i}@example.com`,
            password: 'guessing-password',
          }).toString(),
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 10).every((c) => c === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
    });
  });

  describe('sessions', () => {
    it('redirects to sign-in with the current path and query when nobody is signed in', async () => {
      const res = await s.app.inject({ url: '/account?tab=keys&x=1' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/signin?return_to=${encodeURIComponent('/account?tab=keys&x=1')}`);
    });

    it('ignores a cookie whose signature does not match', async () => {
      const b = browser();
      await b.signUp(person());
      const value = b.cookies.get('colony_session') ?? '';
      // The second-to-last character is the one replaced, so it is the one compared (was the last: 1 in 64
      // runs left the cookie unchanged).
      const tampered = `${value.slice(0, -2)}${value.at(-2) === 'A' ? 'B' : 'A'}${value.slice(-1)}`;
      expect(tampered).not.toBe(value);
      const res = await s.app.inject({ url: '/account', headers: { cookie: `colony_session=${tampered}` } });
      expect(res.statusCode).toBe(303);
    });

    it('expires after two weeks without use and slides forward while used', async () => {
      const b = browser();
      await b.signUp(person());
      const started = clock;
      try {
        clock = started + SESSION_TTL_MS - 60_000;
        const used = await b.get('/account');
        expect(used.statusCode).toBe(200);
        expect(used.cookies.map((c) => c.name)).toContain('colony_session');
        clock = started + SESSION_TTL_MS + 3_600_000;
        expect((await b.get('/account')).statusCode).toBe(200);
        clock = started + 3 * SESSION_TTL_MS;
        expect((await b.get('/account')).statusCode).toBe(303);
      } finally {
        clock = started;
      }
    });
  });

  describe('office membership', () => {
    const bearer = { authorization: `Bearer ${TOKEN}` };
    const members = (office: string) => `/api/v1/offices/${office}/members`;

    it('lets the bootstrap operator set the first owner, then lists and updates members', async () => {
      const owner = person('Owner');
      const helper = person('Helper');
      const b = browser();
      await b.signUp(owner);
      await browser().signUp(helper);
      const put = (email: string, role?: string) =>
        s.app.inject({
          method: 'PUT',
          url: members('acme'),
          headers: bearer,
          payload: { email, ...(role ? { role } : {}) },
        });
      const first = await put(owner.email.toUpperCase(), 'owner');
      expect(first.statusCode).toBe(201);
      expect(first.json()).toMatchObject({ officeId: 'acme', email: owner.email, role: 'owner' });
      expect((await put(helper.email)).json()).toMatchObject({ role: 'operator' });
      expect((await put(helper.email, 'owner')).statusCode).toBe(200);
      const list = await s.app.inject({ url: members('acme'), headers: bearer });
      expect(list.json().members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
        [owner.email, 'owner'],
        [helper.email, 'owner'],
      ]);
      expect((await b.get('/account')).body).toMatch(/<code>acme<\/code><\/td><td>owner/);
    });

    it('keeps the last owner and refuses unknown accounts and members', async () => {
      const owner = person();
      await browser().signUp(owner);
      const put = await s.app.inject({
        method: 'PUT',
        url: members('solo'),
        headers: bearer,
        payload: { email: owner.email, role: 'owner' },
      });
      const { accountId } = put.json();
      const del = await s.app.inject({
        method: 'DELETE',
        url: `${members('solo')}/${accountId}`,
        headers: bearer,
      });
      expect(del.statusCode).toBe(409);
      expect(del.json().code).toBe('conflict');
      const demote = await s.app.inject({
        method: 'PUT',
        url: members('solo'),
        headers: bearer,
        payload: { email: owner.email, role: 'operator' },
      });
      expect(demote.statusCode).toBe(409);
      const unknown = await s.app.inject({
        method: 'PUT',
        url: members('solo'),
        headers: bearer,
        payload: { email: 'nobody@example.com' },
      });
      expect(unknown.statusCode).toBe(404);
      const gone = await s.app.inject({
        method: 'DELETE',
        url: `${members('other')}/${accountId}`,
        headers: bearer,
      });
      expect(gone.statusCode).toBe(404);
    });

    it('answers 401 with the challenge without a token and 400 for a bad body or office id', async () => {
      const anon = await s.app.inject({ url: members('acme') });
      expect(anon.statusCode).toBe(401);
      expect(anon.headers['www-authenticate']).toContain('resource_metadata=');
      const bad = await s.app.inject({
        method: 'PUT',
        url: members('acme'),
        headers: bearer,
        payload: { email: 'x@example.com', role: 'king' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].location).toBe('body.role');
      expect((await s.app.inject({ url: members('Not_An_Office'), headers: bearer })).statusCode).toBe(400);
    });
  });
});

describe('currentAccount and canActOnOffice from another plugin', () => {
  it('resolve the signed-in account and its offices in any plugin of the server', async () => {
    const made = await sqliteTarget.create();
    const storage = await openStorage(made.target);
    const config = loadConfig({ COLONY_BASE_URL: TEST_BASE_URL, LOG_LEVEL: 'silent' });
    const app = await buildServer(config, { storage, runJobs: false });
    await app.register(async (other) => {
      other.get('/probe/:office', async (request) => {
        const account = await currentAccount(request);
        const office = (request.params as { office: string }).office;
        return { account, canAct: account ? await canActOnOffice(account, office) : false };
      });
    });
    await app.ready();
    try {
      const b = new InjectBrowser(app);
      const who = person();
      await b.signUp(who);
      expect((await b.get('/probe/acme')).json()).toMatchObject({
        account: { email: who.email },
        canAct: false,
      });
      const { id } = (await b.get('/probe/acme')).json().account;
      await app.colony.identity.officeMembers.upsert('acme', id, 'operator', Date.now());
      expect((await b.get('/probe/acme')).json().canAct).toBe(true);
      expect((await b.get('/probe/other')).json().canAct).toBe(false);
      expect((await app.inject({ url: '/probe/acme' })).json()).toEqual({ account: null, canAct: false });
      expect(await canActOnOffice({ id, email: who.email, name: who.name, createdAt: 0 }, 'acme')).toBe(
        false,
      );
      const principal = {
        type: 'service_auth' as const,
        subject: 's',
        name: 'n',
        scopes: [],
        credential: 'api_key' as const,
      };
      expect(await canActOnOffice({ ...principal, offices: '*' }, 'acme')).toBe(true);
      expect(await canActOnOffice({ ...principal, offices: ['acme'] }, 'acme')).toBe(true);
      expect(await canActOnOffice({ ...principal, offices: ['acme'] }, 'other')).toBe(false);
    } finally {
      await app.close();
      await storage.close();
      await made.dispose();
    }
  });
});
