// A real server on a real port behind a reverse proxy that appends X-Forwarded-For, configured as the
// chart configures it with its Ingress (COLONY_TRUST_PROXY=1): each client keeps its own budget and
// cannot name its own address. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ForwardingProxy, requestFrom, startForwardingProxy } from '../support/forwarding-proxy.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const LIMIT = 3;
const WINDOW_MS = 60_000;

describe.each(storageTargets)('behind a proxy that appends X-Forwarded-For, on $name', (target) => {
  let s: ListeningServer;
  let proxy: ForwardingProxy;
  // A clock that stays inside one rate-limit window for the whole file.
  const clock = Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 1_000;
  beforeAll(async () => {
    s = await startListeningServer(
      target,
      {
        COLONY_TRUST_PROXY: '1',
        COLONY_API_RATE_LIMIT: String(LIMIT),
        COLONY_RATE_LIMIT_WINDOW_SECONDS: '60',
      },
      { now: () => clock },
    );
    proxy = await startForwardingProxy(s.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await s?.close();
  });

  /** Statuses of `count` reads of the public API from one client address, through the proxy. */
  async function reads(from: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++)
      statuses.push((await requestFrom(from, `${proxy.url}/api/v1/pricing`, { headers })).status);
    return statuses;
  }

  it('gives two clients behind the proxy a budget each', async () => {
    expect(await reads('127.0.0.2', LIMIT + 1)).toEqual([200, 200, 200, 429]);
    // The proxy is one peer for the server, yet the second client still has its whole budget.
    expect(await reads('127.0.0.3', LIMIT + 1)).toEqual([200, 200, 200, 429]);
  });

  it('answers the exhausted client with problem+json and Retry-After through the proxy', async () => {
    const res = await requestFrom('127.0.0.2', `${proxy.url}/api/v1/pricing`);
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('ignores the X-Forwarded-For a client sends itself: only the entry the proxy appends counts', async () => {
    expect(await reads('127.0.0.4', LIMIT)).toEqual([200, 200, 200]);
    // Spoofing another address, or a fresh one each time, leaves the client in its own spent budget.
    expect(await reads('127.0.0.4', 1, { 'x-forwarded-for': '127.0.0.5' })).toEqual([429]);
    expect(await reads('127.0.0.4', 1, { 'x-forwarded-for': '198.51.100.1, 198.51.100.2' })).toEqual([429]);
    // And the address it named keeps its own untouched budget.
    expect(await reads('127.0.0.5', LIMIT + 1)).toEqual([200, 200, 200, 429]);
  });

  /** A wrong-password sign-in from one client address, through the proxy, with the form's CSRF token. */
  async function wrongSignin(from: string, email: string): Promise<number> {
    const form = await requestFrom(from, `${proxy.url}/signin`);
    const csrf = /colony_csrf=([^;]+)/.exec(String(form.headers['set-cookie']))?.[1] ?? '';
    const res = await requestFrom(from, `${proxy.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `colony_csrf=${csrf}` },
      body: new URLSearchParams({ _csrf: csrf, email, password: 'a wrong passphrase' }).toString(),
    });
    return res.status;
  }

  it("keeps one client's wrong passwords from throttling another client's sign-in", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await wrongSignin('127.0.0.6', `guess${i}@example.com`));
    expect(statuses.slice(0, 10).every((code) => code === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    expect(await wrongSignin('127.0.0.7', 'guess0@example.com')).toBe(401);
  });
});
