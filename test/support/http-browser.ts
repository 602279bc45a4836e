// A browser made of fetch and a cookie jar, for scripting sign-in and consent over real HTTP.

export class HttpBrowser {
  readonly cookies = new Map<string, string>();
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  private absolute(url: string): string {
    return new URL(url, this.baseUrl).href;
  }

  /** One request, no redirects followed; cookies of our origin are kept. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const target = this.absolute(url);
    const headers = new Headers(init.headers);
    if (target.startsWith(this.baseUrl) && this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects on our origin; stops at the first page that is not a redirect, or at a
   * redirect that leaves the origin (an OAuth client's redirect_uri), whose URL it returns.
   */
  async follow(url: string, init: RequestInit = {}): Promise<{ url: string; response: Response }> {
    let current = this.absolute(url);
    let response = await this.fetch(current, init);
    for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
      const location = response.headers.get('location');
      if (!location) break;
      current = new URL(location, current).href;
      if (!current.startsWith(this.baseUrl)) return { url: current, response };
      response = await this.fetch(current);
    }
    return { url: current, response };
  }

  /** Posts a form with this browser's CSRF token, as a page on our origin would. */
  submit(
    url: string,
    fields: Record<string, string | string[]>,
  ): Promise<{ url: string; response: Response }> {
    const body = new URLSearchParams({ _csrf: this.cookies.get('colony_csrf') ?? '' });
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    return this.follow(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl },
      body,
    });
  }

  async signUp(account: { name: string; email: string; password: string }): Promise<void> {
    await this.fetch('/signup');
    const { response } = await this.submit('/signup', account);
    if (response.status !== 200) throw new Error(`sign-up ended at ${response.status}`);
  }
}

/** The value of an element with this id in an HTML page. */
export function textOf(html: string, id: string): string | undefined {
  const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html);
  return m?.[1];
}
