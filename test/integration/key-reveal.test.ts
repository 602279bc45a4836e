// A key created on the account page is shown once, by the page its POST redirects to: a reload, a
// replayed ticket or another account never sees it again, and no second key is made. Real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../support/http-browser.ts';
import { newPerson } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const shownKey = (html: string) => /<p class="secret" id="api-key">([^<]+)<\/p>/.exec(html)?.[1];
const REVEAL_COOKIE = 'colony_key_reveal';

describe.each(storageTargets)('the key-created page on $name', (target) => {
  let s: ListeningServer;

  beforeAll(async () => {
    s = await startListeningServer(target, { COLONY_SIGNIN_RATE_LIMIT: '10000' });
  });
  afterAll(() => s.close());

  async function signedIn(): Promise<HttpBrowser> {
    const browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(newPerson('Dorothy Vaughan'));
    await browser.fetch('/account');
    return browser;
  }

  /** Posts the new-key form as the account page does, without following the answer. */
  const postKey = (browser: HttpBrowser, name: string) =>
    browser.fetch('/account/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.baseUrl },
      body: new URLSearchParams({
        _csrf: browser.cookies.get('colony_csrf') ?? '',
        name,
        scope: 'offices:read',
      }),
    });
  const keyRows = async (browser: HttpBrowser) =>
    ((await (await browser.fetch('/account')).text()).match(/<tr id="key-/g) ?? []).length;

  it('answers the POST with 303 to a page that shows the key once; a reload shows it no more', async () => {
    const browser = await signedIn();
    const posted = await postKey(browser, 'reload me');
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/account/keys/created');
    expect(await posted.text()).not.toMatch(/col_[0-9A-Za-z]{38}/);

    const first = await browser.fetch('/account/keys/created');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const key = shownKey(await first.text()) ?? '';
    expect(key).toMatch(/^col_[0-9A-Za-z]{38}$/);

    const reload = await browser.fetch('/account/keys/created');
    expect(reload.status).toBe(200);
    const again = await reload.text();
    expect(again).toContain('id="key-already-shown"');
    expect(shownKey(again)).toBeUndefined();
    expect(again).not.toContain(key);

    expect(await keyRows(browser)).toBe(1);
    const me = await fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
  });

  it('never shows a key twice to a replayed ticket, nor to another account', async () => {
    const owner = await signedIn();
    await postKey(owner, 'replayed');
    const ticket = owner.cookies.get(REVEAL_COOKIE) ?? '';
    expect(ticket).not.toBe('');

    const other = await signedIn();
    other.cookies.set(REVEAL_COOKIE, ticket);
    expect(shownKey(await (await other.fetch('/account/keys/created')).text())).toBeUndefined();

    expect(shownKey(await (await owner.fetch('/account/keys/created')).text())).toMatch(/^col_/);
    owner.cookies.set(REVEAL_COOKIE, ticket);
    const replay = await (await owner.fetch('/account/keys/created')).text();
    expect(replay).toContain('id="key-already-shown"');
    expect(shownKey(replay)).toBeUndefined();
  });

  it('shows nothing to a visit without a ticket, or with a tampered one', async () => {
    const browser = await signedIn();
    expect(await (await browser.fetch('/account/keys/created')).text()).toContain('id="key-already-shown"');
    await postKey(browser, 'tampered');
    const [id, opening = ''] = (browser.cookies.get(REVEAL_COOKIE) ?? '').split('.');
    // The first character's six bits are all key bits, so changing it changes the key.
    const flipped = `${opening.startsWith('A') ? 'B' : 'A'}${opening.slice(1)}`;
    browser.cookies.set(REVEAL_COOKIE, `${id}.${flipped}`);
    const page = await (await browser.fetch('/account/keys/created')).text();
    expect(shownKey(page)).toBeUndefined();
  });
});
