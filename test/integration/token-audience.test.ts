// Token audience (RFC 8707) end to end: tokens obtained with a real OAuth client (openid-client) for
// each resource, presented at /api/v1 and at /mcp, on both databases.
import * as oauth from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const BOOTSTRAP = 'bootstrap-token-for-audience-tests';

describe.each(storageTargets)('token audience on $name', (target) => {
  let s: ListeningServer;
  let client: OAuthTestClient;
  /** Access tokens by what they were asked for. */
  const tokens: Record<'mcp' | 'api' | 'unnamed' | 'signIn', string> = {
    mcp: '',
    api: '',
    unnamed: '',
    signIn: '',
  };

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    client = await OAuthTestClient.register(s.baseUrl, 'Audience test client');
    const person = await client.person('Mary Jackson');
    const get = async (params: Record<string, string>) => (await client.tokens(params, person)).access_token;
    tokens.mcp = await get({ scope: 'memory:read', resource: `${s.baseUrl}/mcp` });
    tokens.api = await get({ scope: 'memory:read keys:write', resource: s.baseUrl });
    tokens.unnamed = await get({ scope: 'memory:read' });
    tokens.signIn = await get({ scope: 'openid email' });
  });
  afterAll(() => s.close());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const me = (token: string) => fetch(`${s.baseUrl}/api/v1/me`, { headers: bearer(token) });
  const listKeys = (token: string) => fetch(`${s.baseUrl}/api/v1/keys`, { headers: bearer(token) });
  /** A memory tool call, so that /mcp authenticates the token (tools/list would not need one). */
  const recall = (token: string) =>
    fetch(`${s.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'cortex_recall', arguments: { query: 'anything' } },
      }),
    });
  const apiMetadata = () => `resource_metadata="${s.baseUrl}/.well-known/oauth-protected-resource"`;
  const mcpMetadata = () => `resource_metadata="${s.baseUrl}/.well-known/oauth-protected-resource/mcp"`;

  it('issues each token for the resource it names, and one naming none for the base URL', async () => {
    const aud = async (token: string) => (await oauth.tokenIntrospection(client.config, token)).aud;
    expect(await aud(tokens.mcp)).toBe(`${s.baseUrl}/mcp`);
    expect(await aud(tokens.api)).toBe(s.baseUrl);
    expect(await aud(tokens.unnamed)).toBe(s.baseUrl);
    expect(await aud(tokens.signIn)).toBeUndefined();
  });

  it('refuses a token for /mcp at /api/v1 with 401 invalid_token naming its audience', async () => {
    for (const res of [await me(tokens.mcp), await listKeys(tokens.mcp)]) {
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`error_description="token audience ${s.baseUrl}/mcp is not this resource`);
      expect(challenge).toContain(apiMetadata());
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    }
  });

  it('accepts a token for /mcp at /mcp', async () => {
    expect((await recall(tokens.mcp)).status).toBe(200);
  });

  it('accepts a token for the base URL at /api/v1 and at /mcp: the base URL names the whole service', async () => {
    const res = await me(tokens.api);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ credential: 'oauth_access_token', resource: s.baseUrl });
    expect((await listKeys(tokens.api)).status).toBe(200);
    expect((await recall(tokens.api)).status).toBe(200);
    expect((await me(tokens.unnamed)).status).toBe(200);
    expect((await recall(tokens.unnamed)).status).toBe(200);
  });

  it('refuses a sign-in token (no audience) at both resources, each challenge naming its own metadata', async () => {
    const atApi = await me(tokens.signIn);
    expect(atApi.status).toBe(401);
    expect(atApi.headers.get('www-authenticate')).toContain('error_description="token audience is none');
    expect(atApi.headers.get('www-authenticate')).toContain(apiMetadata());
    const atMcp = await recall(tokens.signIn);
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(atMcp.headers.get('www-authenticate')).toContain(`resource=${s.baseUrl}/mcp`);
    expect(atMcp.headers.get('www-authenticate')).toContain(mcpMetadata());
  });

  it('accepts API keys and the bootstrap token at both resources: they carry no audience', async () => {
    const created = await fetch(`${s.baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { ...bearer(tokens.api), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'memory script', scopes: ['memory:read'] }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    expect((await me(key)).status).toBe(200);
    expect((await recall(key)).status).toBe(200);
    expect((await me(BOOTSTRAP)).status).toBe(200);
    const asOperator = await recall(BOOTSTRAP);
    expect(asOperator.headers.get('www-authenticate')).toBeNull();
    expect(asOperator.status).not.toBe(401);
  });
});
