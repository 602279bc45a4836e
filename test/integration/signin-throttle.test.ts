// Sign-in throttling cannot be turned against an account's owner: wrong passwords count per
// (address, account) with growing waits, and per address across accounts. On SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../api/app-storage.ts';
import { PAIR_WINDOW_MS } from '../../api/identity/accounts/signin-throttle.ts';
import { InjectBrowser } from '../support/browser.ts';
import { startTestServer, startTestServerOn, type TestServer } from '../support/server.ts';
import { postgresTarget, postgresUrl, storageTargets } from '../support/storage-targets.ts';

const PASSWORD = 'the owner’s passphrase';
const WRONG = 'a guessed passphrase';
let seq = 0;

describe.each(storageTargets)('sign-in throttling on $name', (target) => {
  let s: TestServer;
  // The counters live in fixed windows: start each run at the start of one so no test crosses it.
  let clock = Math.ceil(Date.now() / PAIR_WINDOW_MS) * PAIR_WINDOW_MS;
  beforeAll(async () => {
    // PostgreSQL runs keep the counters in the database, as replicas sharing it do.
    const store: Record<string, string> =
      target.name === 'postgres' ? { COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() } : {};
    s = await startTestServerOn(
      target,
      { COLONY_SIGNIN_FREE_FAILURES: '5', COLONY_SIGNIN_RATE_LIMIT: '10', ...store },
      { now: () => clock },
    );
  });
  afterAll(() => s.close());

  /** A new account, signed up from a browser of its own; returns its email. */
  async function owner(): Promise<string> {
    const email = `owner${++seq}@example.com`;
    const res = await new InjectBrowser(s.app).signUp({ name: 'Owner', email, password: PASSWORD });
    expect(res.statusCode).toBe(303);
    return email;
  }

  /** A browser (so an address) that has loaded the sign-in form. */
  async function browserAtSignin(): Promise<InjectBrowser> {
    const b = new InjectBrowser(s.app);
    await b.get('/signin');
    return b;
  }

  const signIn = (b: InjectBrowser, email: string, password: string) =>
    b.submit('/signin', { email, password });

  it('lets the owner sign in from their own address after an attacker failed many times elsewhere', async () => {
    const email = await owner();
    const attacker = await browserAtSignin();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await signIn(attacker, email, `${WRONG} ${i}`)).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((code) => code === 429)).toBe(true);
    // The attacker's pair stays throttled, even with the right password…
    expect((await signIn(attacker, email, PASSWORD)).statusCode).toBe(429);
    // …but the owner, from an address that has not been failing, signs straight in.
    const home = await browserAtSignin();
    const res = await signIn(home, email, PASSWORD);
    expect(res.statusCode).toBe(303);
    expect(home.cookies.has('colony_session')).toBe(true);
  });

  it('makes each try past the free failures wait longer (1 s, then doubling), with Retry-After', async () => {
    const email = await owner();
    const attacker = await browserAtSignin();
    for (let i = 0; i < 5; i++) expect((await signIn(attacker, email, WRONG)).statusCode).toBe(401);
    const waits: string[] = [];
    for (let round = 0; round < 3; round++) {
      const early = await signIn(attacker, email, WRONG);
      expect(early.statusCode).toBe(429);
      const wait = String(early.headers['retry-after']);
      waits.push(wait);
      clock += Number(wait) * 1000;
      expect((await signIn(attacker, email, WRONG)).statusCode).toBe(401);
    }
    expect(waits).toEqual(['1', '2', '4']);
    // Half-way through the next wait (8 s), the answer says how much of it is left.
    clock += 4000;
    expect((await signIn(attacker, email, WRONG)).headers['retry-after']).toBe('4');
    clock += 4000;
    // Once the wait is over, the right password signs in from that address too.
    expect((await signIn(attacker, email, PASSWORD)).statusCode).toBe(303);
  });

  it('counts a burst of parallel tries as many tries: one gets through, the rest wait', async () => {
    const email = await owner();
    const attacker = await browserAtSignin();
    for (let i = 0; i < 5; i++) expect((await signIn(attacker, email, WRONG)).statusCode).toBe(401);
    clock += 1000;
    const burst = await Promise.all(Array.from({ length: 6 }, () => signIn(attacker, email, WRONG)));
    const codes = burst.map((r) => r.statusCode).sort();
    expect(codes).toEqual([401, 429, 429, 429, 429, 429]);
  });

  it('caps wrong passwords from one address across accounts, without touching other addresses', async () => {
    const email = await owner();
    const stuffer = await browserAtSignin();
    for (let i = 0; i < 10; i++) {
      expect((await signIn(stuffer, `victim${seq}-${i}@example.com`, WRONG)).statusCode).toBe(401);
    }
    const capped = await signIn(stuffer, `victim${seq}-next@example.com`, WRONG);
    expect(capped.statusCode).toBe(429);
    const wait = Number(capped.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await signIn(await browserAtSignin(), email, PASSWORD)).statusCode).toBe(303);
  });

  it('does not count right passwords: an owner who signs in often is never throttled', async () => {
    const email = await owner();
    const b = await browserAtSignin();
    for (let i = 0; i < 15; i++) expect((await signIn(b, email, PASSWORD)).statusCode).toBe(303);
  });

  it('answers a throttled sign-in with the HTML form, Retry-After and the page-security headers', async () => {
    const email = await owner();
    const attacker = await browserAtSignin();
    for (let i = 0; i < 5; i++) await signIn(attacker, email, WRONG);
    const res = await signIn(attacker, email, WRONG);
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(res.body).toContain('Too many wrong passwords for this account from your address. Wait 1 second');
    expect(res.body).toContain('action="/signin"');
  });
});

describe.each(storageTargets)('sign-in throttling with sliding-window limits on $name', (target) => {
  let s: TestServer;
  // Ten seconds before an hour ends, so the next hour's window follows within the test.
  let clock = Math.ceil(Date.now() / PAIR_WINDOW_MS) * PAIR_WINDOW_MS - 10_000;
  beforeAll(async () => {
    // On PostgreSQL through the shared (guarded) store, on SQLite through the in-process one.
    const store: Record<string, string> =
      target.name === 'postgres' ? { COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() } : {};
    const env = { COLONY_SIGNIN_FREE_FAILURES: '5', COLONY_RATE_LIMIT_ALGORITHM: 'sliding', ...store };
    s = await startTestServerOn(target, env, { now: () => clock });
  });
  afterAll(() => s.close());

  it('counts the pair exactly, as with fixed windows: the waits follow, and a new hour starts afresh', async () => {
    const email = `sliding${++seq}@example.com`;
    expect((await new InjectBrowser(s.app).signUp({ name: 'O', email, password: PASSWORD })).statusCode).toBe(
      303,
    );
    const attacker = new InjectBrowser(s.app);
    await attacker.get('/signin');
    const signIn = (password: string) => attacker.submit('/signin', { email, password });
    for (let i = 0; i < 5; i++) expect((await signIn(WRONG)).statusCode).toBe(401);
    const early = await signIn(WRONG);
    expect(early.statusCode).toBe(429);
    expect(early.headers['retry-after']).toBe('1');
    // The next hour: the throttle's own counters are exact windows, not the limits' sliding estimate.
    clock += 11_000;
    for (let i = 0; i < 5; i++) expect((await signIn(WRONG)).statusCode).toBe(401);
    expect((await signIn(WRONG)).headers['retry-after']).toBe('1');
  });
});

describe('sign-in throttling shared by replicas', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** Two replicas on one PostgreSQL schema, or on two SQLite files sharing one Redis. */
  async function twoReplicas(store: 'postgres' | 'redis'): Promise<TestServer[]> {
    const env = { COLONY_SIGNIN_FREE_FAILURES: '3', COLONY_BASE_URL: 'http://replicas.test' };
    if (store === 'redis') {
      const redis = { ...env, COLONY_RATE_LIMIT_STORE: 'redis', REDIS_URL: process.env.TEST_REDIS_URL ?? '' };
      const servers = [await startTestServer(redis), await startTestServer(redis)];
      for (const r of servers) closers.push(() => r.close());
      return servers;
    }
    const made = await postgresTarget.create();
    closers.push(() => made.dispose());
    const storage = await openStorage(made.target);
    closers.push(() => storage.close());
    const shared = { ...env, COLONY_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: postgresUrl() };
    const servers = [await startTestServer(shared, { storage }), await startTestServer(shared, { storage })];
    for (const r of servers) closers.push(() => r.close());
    return servers;
  }

  it.each(['postgres', 'redis'] as const)(
    'makes the pair wait on one replica after it failed on the other (%s)',
    async (store) => {
      const [a, b] = await twoReplicas(store);
      if (!a || !b) throw new Error('no replicas');
      // A fresh address and account per run keep earlier runs' Redis counters out of the way.
      const email = `nobody-${randomBytes(6).toString('hex')}@example.com`;
      const remoteAddress = `10.${[...randomBytes(3)].join('.')}`;
      const [first, second] = [new InjectBrowser(a.app), new InjectBrowser(b.app)];
      const from = async (browser: InjectBrowser) => {
        await browser.get('/signin');
        return browser.request({
          method: 'POST',
          url: '/signin',
          remoteAddress,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({
            _csrf: browser.cookies.get('colony_csrf') ?? '',
            email,
            password: WRONG,
          }).toString(),
        });
      };
      const codes = [];
      for (const browser of [first, second, first, second]) codes.push((await from(browser)).statusCode);
      expect(codes).toEqual([401, 401, 401, 429]);
    },
  );
});
