// The service_auth flow of spec 5.5 through the API, on both databases over real HTTP: an owner's
// OAuth token provisions a credential for one agent of one office; it is shown once, bound to that
// office, listed and revoked like any key, and refused for an office the caller does not own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../support/http-browser.ts';
import { newPerson, OAuthTestClient } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const BOOTSTRAP = 'agent-credentials-bootstrap-token-0123';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The fields these answers are read for: /me's offices, a problem's detail and errors. */
type Answer = { offices?: string[]; detail?: string; errors?: { location: string }[] };
const json = async (res: Response) => (await res.json()) as Answer;

describe.each(storageTargets)('agent credentials on $name', (target) => {
  let server: ListeningServer;
  let token: string;
  let email: string;

  const call = (path: string, key: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...bearer(key), ...(init.body ? { 'content-type': 'application/json' } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
  const member = (office: string, role: string) =>
    call(`/api/v1/offices/${office}/members`, BOOTSTRAP, { method: 'PUT', body: { email, role } });
  const provision = (office: string, body: unknown, key = token) =>
    call(`/api/v1/offices/${office}/agent-credentials`, key, { method: 'POST', body });

  beforeAll(async () => {
    server = await startListeningServer(target, { COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP });
    const oauth = await OAuthTestClient.register(server.baseUrl);
    const who = newPerson();
    email = who.email;
    const browser = new HttpBrowser(server.baseUrl);
    await browser.signUp(who);
    const scope = 'keys:write offices:read offices:write';
    token = (await oauth.tokens({ scope, resource: server.baseUrl }, browser)).access_token;
    expect((await member('acme', 'owner')).status).toBe(201);
    expect((await member('helped', 'operator')).status).toBe(201);
  });
  afterAll(() => server.close());

  it('shows the credential once, bound to the office with the agent scopes', async () => {
    const res = await provision('acme', { agentName: 'scout' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = (await res.json()) as {
      id: string;
      key: string;
      name: string;
      offices: string[];
      scopes: string[];
    };
    expect(created).toMatchObject({
      name: 'agent scout (acme)',
      offices: ['acme'],
      scopes: ['offices:read', 'offices:write'],
    });
    const me = await json(await call('/api/v1/me', created.key));
    expect(me.offices).toEqual(['acme']);
    const listed = (await (await call('/api/v1/keys', token)).json()) as {
      keys: { id: string; hint: string }[];
    };
    const row = listed.keys.find((k) => k.id === created.id);
    expect(row?.hint).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(created.key);
    // Bound to acme: another office of the same owner is refused, and it never acts as the owner.
    expect((await call('/api/v1/offices/helped/members', created.key)).status).toBe(403);
    const asOwner = await call('/api/v1/offices/acme/members', created.key, {
      method: 'PUT',
      body: { email },
    });
    expect(asOwner.status).toBe(403);
    expect((await json(asOwner)).detail).toContain('Only an owner');
    expect((await call(`/api/v1/keys/${created.id}`, token, { method: 'DELETE' })).status).toBe(204);
    expect((await call('/api/v1/me', created.key)).status).toBe(401);
  });

  it('is advertised in the agent_auth block of the authorization-server metadata', async () => {
    const meta = (await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
      agent_auth: {
        identity_types: {
          service_auth: { credentials: { type: string; create_with_api?: { url: string } }[] };
        };
      };
    };
    const agent = meta.agent_auth.identity_types.service_auth.credentials.find(
      (c) => c.type === 'agent_credential',
    );
    expect(agent?.create_with_api?.url).toBe(`${server.baseUrl}/api/v1/offices/{officeID}/agent-credentials`);
  });

  it('refuses an office the caller only operates, a bad agent name and an API key as the caller', async () => {
    const operator = await provision('helped', { agentName: 'scout' });
    expect(operator.status).toBe(403);
    expect((await json(operator)).detail).toContain('Only an owner of office helped');
    const bad = await provision('acme', { agentName: 'Not An Agent' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors?.[0]?.location).toBe('body.agentName');
    const key = (await (await provision('acme', { agentName: 'relay' })).json()) as { key: string };
    const minted = await provision('acme', { agentName: 'other' }, key.key);
    expect(minted.status).toBe(403);
  });
});
