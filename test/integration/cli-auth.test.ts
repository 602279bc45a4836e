// `colony login|whoami|logout|keys` in-process against a listening server on PostgreSQL, with a person
// approving (or denying) the device code through Colony's own pages over HTTP.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run.ts';
import { eventually } from '../support/eventually.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { newPerson } from '../support/oauth-client.ts';
import { freePort, type ListeningServer, startListeningServer } from '../support/server.ts';
import { postgresTarget } from '../support/storage-targets.ts';

let s: ListeningServer;
let configDir: string;
const person = newPerson('Ada Lovelace');

beforeAll(async () => {
  s = await startListeningServer(postgresTarget, {
    COLONY_API_RATE_LIMIT: '10000',
    COLONY_SIGNIN_RATE_LIMIT: '10000',
  });
  configDir = mkdtempSync(join(tmpdir(), 'colony-cli-auth-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(configDir, { recursive: true, force: true });
});

const credentialsFile = () => join(configDir, 'credentials.json');
// biome-ignore lint/suspicious/noExplicitAny: the stored file is asserted field by field
const stored = (): Record<string, any> => JSON.parse(readFileSync(credentialsFile(), 'utf8'));

/** Starts a command; its output lines fill in as it runs. */
function start(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const done = runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { COLONY_CONFIG_DIR: configDir, ...env },
    cwd: process.cwd(),
  });
  return { out, err, done };
}

async function colony(argv: string[], env: Record<string, string> = {}) {
  const run = start(argv, env);
  const code = await run.done;
  return { code, out: run.out, err: run.err, all: [...run.out, ...run.err].join('\n') };
}

const me = (token: string) =>
  fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });

const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The person opens the printed page, confirms the code, and approves or denies on the consent page. */
async function answerDevicePrompt(
  run: ReturnType<typeof start>,
  browser: HttpBrowser,
  decision: 'confirm' | 'deny',
) {
  const url = await eventually(async () => run.err.map((l) => l.trim()).find((l) => l.startsWith('http')));
  const userCode = await eventually(async () =>
    run.err.map((l) => /code: ([A-Z]{4}-[A-Z]{4})/.exec(l)?.[1]).find(Boolean),
  );
  expect(url).toBe(`${s.baseUrl}/oauth/device?user_code=${userCode}`);
  let page = await (await browser.follow(url)).response.text();
  if (!page.includes('Confirm the device'))
    page = await (
      await browser.submit('/oauth/device', { xsrf: xsrfOf(page), user_code: userCode })
    ).response.text();
  expect(page).toContain(userCode);
  const consent = await browser.submit('/oauth/device', {
    xsrf: xsrfOf(page),
    user_code: userCode,
    confirm: 'yes',
  });
  const consentPage = await consent.response.text();
  expect(consentPage).toContain('Colony CLI');
  const uid = /action="\/oauth\/interaction\/([^/"]+)\/confirm"/.exec(consentPage)?.[1];
  await browser.submit(`/oauth/interaction/${uid}/${decision}`, {});
  return { userCode };
}

describe('colony login, whoami, keys and logout', () => {
  let browser: HttpBrowser;
  let firstAccessToken: string;
  let keyId: string;
  let key: string;

  beforeAll(async () => {
    browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(person);
  });

  it('whoami before any login exits 3 (auth) and says how to log in', async () => {
    const r = await colony(['whoami', '--endpoint', s.baseUrl]);
    expect(r.code).toBe(3);
    expect(r.err.join('\n')).toContain(`not logged in to ${s.baseUrl}; run \`colony login`);
  });

  it('login exits non-zero naming the denial when the person denies', async () => {
    const run = start(['login', '--endpoint', s.baseUrl]);
    await answerDevicePrompt(run, browser, 'deny');
    expect(await run.done).toBe(1);
    expect(run.err.at(-1)).toMatch(/^colony: the login was denied in the browser/);
    expect(() => statSync(credentialsFile())).toThrow();
  });

  it('login exits non-zero when the endpoint cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await colony(['login', '--endpoint', closed]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `colony: cannot reach ${closed} (ECONNREFUSED)`,
      'hint: check that the server is up, or pass --endpoint <url> (or set COLONY_ENDPOINT)',
    ]);
  });

  it('login stores the session privately after the person approves', async () => {
    const run = start(['login', '--endpoint', `${s.baseUrl}/`]);
    await answerDevicePrompt(run, browser, 'confirm');
    expect(await run.done).toBe(0);
    expect(run.out).toEqual([`Logged in to ${s.baseUrl} as Ada Lovelace <${person.email}>`]);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600);
    const file = stored();
    expect(file.defaultEndpoint).toBe(s.baseUrl);
    const login = file.logins[s.baseUrl];
    expect(login).toMatchObject({ issuer: s.baseUrl, resource: s.baseUrl, clientId: 'colony-cli' });
    expect(login.scope.split(' ')).toEqual(
      expect.arrayContaining(['offices:read', 'offices:write', 'keys:write', 'backups:read']),
    );
    expect(login.refreshToken).toBeTruthy();
    expect(Date.parse(login.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    const printed = [...run.out, ...run.err].join('\n');
    expect(printed).not.toContain(login.accessToken);
    expect(printed).not.toContain(login.refreshToken);
    firstAccessToken = login.accessToken;
  });

  it('whoami prints the account of the stored login, as text and as JSON', async () => {
    const r = await colony(['whoami']);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(new RegExp(`^Ada Lovelace <${person.email}> \\(acct_`));
    expect(r.out[1]).toBe('credential: oauth_access_token (colony-cli)');
    expect(r.out[2]).toContain('keys:write');
    const json = await colony(['whoami', '--json']);
    expect(JSON.parse(json.out.join('\n'))).toMatchObject({
      type: 'user',
      credential: 'oauth_access_token',
      clientId: 'colony-cli',
      account: { email: person.email },
    });
  });

  it('keys create prints a col_ key once, with a warning, and the key authenticates /api/v1/me', async () => {
    const r = await colony([
      'keys',
      'create',
      '--name',
      'laptop',
      '--scopes',
      'offices:read',
      '--expires-in-days',
      '30',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    key = r.out[0] as string;
    expect(key).toMatch(/^col_[0-9A-Za-z]{38}$/);
    expect(r.err.join('\n')).toContain('it is not shown again');
    keyId = /Created (key_[a-z2-7]{24})/.exec(r.err.join('\n'))?.[1] as string;
    const res = await me(key);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      credential: 'api_key',
      credentialId: keyId,
      scopes: ['offices:read'],
    });
  });

  it('other commands use the stored login for the default endpoint too', async () => {
    const r = await colony(['integrations', 'show', 'slack']);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^Slack \(slack\)/);
  });

  it('whoami prefers COLONY_API_KEY over the stored login', async () => {
    // No COLONY_ENDPOINT: the key goes to the endpoint of the latest login.
    const r = await colony(['whoami'], { COLONY_API_KEY: key });
    expect(r.code).toBe(0);
    expect(r.out[1]).toBe(`credential: api_key (${keyId})`);
  });

  it('keys list shows the key without its secret, and refuses an API key in place of the login', async () => {
    const r = await colony(['keys', 'list']);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toMatch(new RegExp(`^${keyId}  laptop +col_`));
    expect(r.all).not.toContain(key);
    const json = await colony(['keys', 'list', '--json']);
    const keys = JSON.parse(json.out.join('\n'));
    expect(keys).toEqual([expect.objectContaining({ id: keyId, name: 'laptop', offices: null })]);
    expect(keys[0].key).toBeUndefined();
    expect(json.all).not.toContain(key);

    const other = mkdtempSync(join(tmpdir(), 'colony-cli-empty-'));
    const r2 = await colony(['keys', 'list'], {
      COLONY_CONFIG_DIR: other,
      COLONY_API_KEY: key,
      COLONY_ENDPOINT: s.baseUrl,
    });
    rmSync(other, { recursive: true, force: true });
    expect(r2.code).toBe(3);
    expect(r2.err.join('\n')).toContain('not logged in');
  });

  it('keys create refuses bad flags with usage, and the server refuses an unknown scope with its problem', async () => {
    expect((await colony(['keys', 'create'])).code).toBe(2);
    expect((await colony(['keys', 'create', '--name', 'x', '--expires-in-days', 'soon'])).code).toBe(2);
    const r = await colony(['keys', 'create', '--name', 'x', '--scopes', 'keys:write']);
    expect(r.code).toBe(1);
    expect(r.err.join('\n')).toMatch(/^colony: 400 /);
  });

  it('keys revoke makes the key fail with 401; revoking it again is a clear 404', async () => {
    const r = await colony(['keys', 'revoke', keyId]);
    expect(r).toMatchObject({ code: 0, out: [`Revoked ${keyId}`] });
    expect((await me(key)).status).toBe(401);
    const again = await colony(['keys', 'revoke', keyId]);
    expect(again.code).toBe(4);
    expect(again.err.join('\n')).toContain('404 not_found');
  });

  it('refreshes an expired access token transparently and saves the rotated pair', async () => {
    const before = stored();
    before.logins[s.baseUrl].expiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(credentialsFile(), JSON.stringify(before));
    const r = await colony(['whoami']);
    expect(r.code).toBe(0);
    const after = stored().logins[s.baseUrl];
    expect(after.accessToken).not.toBe(firstAccessToken);
    expect(after.refreshToken).not.toBe(before.logins[s.baseUrl].refreshToken);
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect((await me(after.accessToken)).status).toBe(200);
  });

  it('refreshes when the API answers 401 for a token that has not expired by the clock', async () => {
    // A token the server does not know (its clock disagreed, or its store was reset) with an expiry
    // far ahead: only the API's 401 tells the CLI to refresh.
    const file = stored();
    const refused = 'A'.repeat(43);
    file.logins[s.baseUrl].accessToken = refused;
    writeFileSync(credentialsFile(), JSON.stringify(file));
    expect((await me(refused)).status).toBe(401);
    const r = await colony(['keys', 'list']);
    expect(r.err).toEqual(['no API keys; create one with `colony keys create --name <name>`']);
    expect(r.code).toBe(0);
    const after = stored().logins[s.baseUrl];
    expect(after.accessToken).not.toBe(refused);
    expect((await me(after.accessToken)).status).toBe(200);
  });

  it('logout revokes the tokens at the server and clears the stored login', async () => {
    const login = stored().logins[s.baseUrl];
    expect((await me(login.accessToken)).status).toBe(200);
    const r = await colony(['logout']);
    expect(r).toMatchObject({ code: 0, out: [`Logged out of ${s.baseUrl}`] });
    expect((await me(login.accessToken)).status).toBe(401);
    const cli = await oauth.discovery(new URL(s.baseUrl), 'colony-cli', undefined, oauth.None(), {
      execute: [oauth.allowInsecureRequests],
    });
    await expect(oauth.refreshTokenGrant(cli, login.refreshToken)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(stored()).toEqual({ version: 1, defaultEndpoint: null, logins: {} });
    const whoami = await colony(['whoami', '--endpoint', s.baseUrl]);
    expect(whoami.code).toBe(3);
    expect((await colony(['logout', '--endpoint', s.baseUrl])).code).toBe(1);
  });

  it('a command on an endpoint that does not answer names it and why', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await colony(['whoami', '--endpoint', closed], { COLONY_API_KEY: 'col_unused' });
    expect(r).toMatchObject({
      code: 1,
      err: [
        `colony: cannot reach ${closed} (ECONNREFUSED)`,
        'hint: check that the server is up, or pass --endpoint <url> (or set COLONY_ENDPOINT)',
      ],
    });
  });

  it('logout removes the local login even when the server cannot be reached, and says so', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const file = stored();
    file.logins[closed] = {
      accessToken: 'at',
      refreshToken: 'rt',
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      scope: 'offices:read',
      issuer: closed,
      resource: closed,
      clientId: 'colony-cli',
    };
    writeFileSync(credentialsFile(), JSON.stringify(file));
    const r = await colony(['logout', '--endpoint', closed]);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([`Logged out of ${closed} (locally only)`]);
    expect(r.err.join('\n')).toContain('could not revoke the session at the server: cannot reach');
    expect(stored().logins).toEqual({});
  });
});
