// A cookie jar over app.inject(), so route tests can drive the identity pages like a browser.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

let browsers = 0;

export class InjectBrowser {
  readonly cookies = new Map<string, string>();
  /** Each browser has an address of its own, as real ones do, so per-address limits apply per browser. */
  readonly address: string;
  private readonly app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.app = app;
    browsers++;
    this.address = `10.${(browsers >> 16) & 255}.${(browsers >> 8) & 255}.${browsers & 255}`;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(opts: InjectOptions): Promise<LightMyRequestResponse> {
    const headers = { ...(opts.headers ?? {}) } as Record<string, string>;
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    const res = await this.app.inject({ remoteAddress: this.address, ...opts, headers });
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now()) || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  get(url: string): Promise<LightMyRequestResponse> {
    return this.request({ method: 'GET', url });
  }

  /** Posts a form the way a browser does, with the CSRF token of the last page the jar saw. */
  async submit(url: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const form = new URLSearchParams({ _csrf: this.cookies.get('colony_csrf') ?? '' });
    for (const [k, v] of Object.entries(fields)) {
      if (k === '_csrf') form.set(k, String(v));
      else for (const one of [v].flat()) form.append(k, one);
    }
    return this.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: form.toString(),
    });
  }

  /** Signs up a new account through the real form and returns the jar's session. */
  async signUp(account: { name: string; email: string; password: string }, returnTo?: string) {
    await this.get('/signup');
    return this.submit('/signup', { ...account, ...(returnTo ? { return_to: returnTo } : {}) });
  }
}

let owners = 0;

/** A browser signed up as a new account (an owner about to buy), and that account's id. */
export async function signedUpOwner(
  app: FastifyInstance,
  accounts: { byEmail(email: string): Promise<{ id: string } | undefined> },
): Promise<{ browser: InjectBrowser; accountId: string }> {
  const browser = new InjectBrowser(app);
  const email = `owner-${++owners}-${Date.now()}@example.com`;
  const res = await browser.signUp({ name: 'Owner', email, password: 'correct horse battery' });
  if (res.statusCode !== 303) throw new Error(`sign-up answered ${res.statusCode}: ${res.body}`);
  const account = await accounts.byEmail(email);
  if (!account) throw new Error('sign-up made no account');
  return { browser, accountId: account.id };
}
