// The MCP endpoint end to end with the official SDK client, tokens from a real OAuth flow
// (openid-client), step-up challenges at the HTTP level and memory isolation, on both databases.
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBrowser } from '../support/http-browser.ts';
import {
  callTool as call,
  connectMcp as connect,
  type Json,
  messageOf,
  rawCall,
  toolCall,
} from '../support/mcp-client.ts';
import { newPerson, OAuthTestClient, TEST_REDIRECT } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const BOOTSTRAP = 'bootstrap-token-for-mcp-tests';

/**
 * The SDK's own OAuth client: it discovers, registers and builds the authorization URL itself;
 * the "browser redirect" is handed to the test, which approves it as a person would.
 */
class SdkOAuthProvider implements OAuthClientProvider {
  private client?: Json;
  private saved?: Json;
  private verifier = '';
  readonly redirects: URL[] = [];
  get redirectUrl() {
    return TEST_REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'SDK test client',
      redirect_uris: [TEST_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client as never;
  }
  saveClientInformation(info: Json) {
    this.client = info;
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: Json) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.redirects.push(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe.each(storageTargets)('MCP server on $name', (target) => {
  let s: ListeningServer;
  let oauth: OAuthTestClient;
  let readWrite: string;
  let readOnly: string;
  let other: string;
  let adaApi: string;

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    oauth = await OAuthTestClient.register(s.baseUrl);
    const ada = await oauth.person('Ada');
    const resource = `${s.baseUrl}/mcp`;
    readWrite = (await oauth.tokens({ scope: 'memory:read memory:write', resource }, ada)).access_token;
    readOnly = (await oauth.tokens({ scope: 'memory:read', resource }, ada)).access_token;
    // /mcp tokens are for /mcp only; Ada's profile at /api/v1/me needs a token for the API.
    adaApi = (await oauth.tokens({ scope: 'offices:read', resource: s.baseUrl }, ada)).access_token;
    const bob = await oauth.person('Bob');
    other = (await oauth.tokens({ scope: 'memory:read memory:write', resource }, bob)).access_token;
  });
  afterAll(() => s.close());

  it('lists every tool and answers the public ones without a credential', async () => {
    const client = await connect(s.baseUrl);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'cortex_ask',
      'cortex_connect_link',
      'cortex_connectable_sources',
      'cortex_forget',
      'cortex_ingest',
      'cortex_ingest_conversation',
      'cortex_manifest',
      'cortex_recall',
      'cortex_remember',
      'cortex_status',
      'get_platform_status',
      'get_pricing',
      'list_skills',
      'search_docs',
    ]);
    const pricing = await call(client, 'get_pricing');
    const api = (await (await fetch(`${s.baseUrl}/api/v1/pricing`)).json()) as Json;
    expect(pricing).toEqual(api);
    const status = await call(client, 'get_platform_status', { service: 'database' });
    expect(status.services[0]).toMatchObject({ name: 'database', status: 'operational' });
    const skills = await call(client, 'list_skills', { limit: 2 });
    const apiSkills = (await (await fetch(`${s.baseUrl}/api/v1/skills?limit=2`)).json()) as Json;
    expect(skills).toEqual(apiSkills);
    const docs = await call(client, 'search_docs', { query: 'problem details errors' });
    expect(docs.results.length).toBeGreaterThan(0);
    expect(docs.results[0].url).toMatch(new RegExp(`^${s.baseUrl}/docs/`));
    await client.close();
  });

  it('sends the structured result again as compact JSON text, the same at every call', async () => {
    const client = await connect(s.baseUrl);
    const first = (await client.callTool({ name: 'get_pricing', arguments: {} })) as Json;
    const again = (await client.callTool({ name: 'get_pricing', arguments: {} })) as Json;
    expect(first.content).toEqual([{ type: 'text', text: JSON.stringify(first.structuredContent) }]);
    expect(again).toEqual(first);
    // A narrowed list is built per call and leaves the whole one as it was.
    const slug = first.structuredContent.plans[0].slug;
    const one = (await client.callTool({ name: 'get_pricing', arguments: { plan: slug } })) as Json;
    expect(one.structuredContent.plans.map((p: Json) => p.slug)).toEqual([slug]);
    expect(await client.callTool({ name: 'get_pricing', arguments: {} })).toEqual(first);
    await client.close();
  });

  it('answers a memory call without a token with 401 and the MCP resource metadata challenge', async () => {
    const res = await rawCall(s.baseUrl, toolCall('cortex_recall', { query: 'anything' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.baseUrl}/.well-known/oauth-protected-resource/mcp", scope="memory:read"`,
    );
    const client = await connect(s.baseUrl);
    await expect(client.callTool({ name: 'cortex_recall', arguments: { query: 'x' } })).rejects.toThrow();
  });

  it('never accepts a token in the query string', async () => {
    const res = await rawCall(s.baseUrl, toolCall('get_pricing'), {}, `/mcp?access_token=${readWrite}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
  });

  it('refuses a token in the header and another in the query string at once', async () => {
    const res = await rawCall(
      s.baseUrl,
      toolCall('get_pricing'),
      { authorization: `Bearer ${readWrite}` },
      `/mcp?access_token=${readWrite}`,
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_request"');
  });

  it('answers 403 insufficient_scope naming memory:write to a read-only token, so clients step up', async () => {
    const res = await rawCall(s.baseUrl, toolCall('cortex_remember', { text: 'x' }), {
      authorization: `Bearer ${readOnly}`,
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="memory:write"');
    expect(challenge).toContain(`resource_metadata="${s.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    const reader = await connect(s.baseUrl, readOnly);
    expect(await call(reader, 'cortex_recall', { query: 'anything' })).toEqual({ memories: [] });
    await reader.close();
  });

  it('remembers, ingests, recalls with hybrid retrieval, answers with citations and forgets', async () => {
    const client = await connect(s.baseUrl, readWrite);
    const fact = await call(client, 'cortex_remember', {
      text: 'The staging cluster runs in Frankfurt and is rebuilt every Monday.',
      source: 'ops notes',
    });
    expect(fact.ids).toHaveLength(1);
    const doc = await call(client, 'cortex_ingest', {
      source: 'handbook.md',
      content: `${'Holidays are booked in the HR tool two weeks ahead. '.repeat(20)}\n\nExpense reports are due on the fifth of each month.`,
    });
    expect(doc.chunks).toBeGreaterThan(1);
    const conversation = await call(client, 'cortex_ingest_conversation', {
      source: 'slack',
      messages: [
        { role: 'user', content: 'Which database do we use for billing?' },
        { role: 'assistant', content: 'Billing runs on PostgreSQL 16 with nightly backups.' },
      ],
    });
    expect(conversation.chunks).toBe(1);

    const recalled = await call(client, 'cortex_recall', { query: 'where does staging run?', limit: 3 });
    expect(recalled.memories[0]).toMatchObject({ id: fact.ids[0], source: 'ops notes', kind: 'fact' });
    const answer = await call(client, 'cortex_ask', { question: 'When are expense reports due?' });
    expect(answer.answer).toContain('fifth of each month');
    expect(answer.answer).toMatch(/\[1\]/);
    expect(answer.citations[0]).toMatchObject({ n: 1, source: 'handbook.md' });

    const manifest = await call(client, 'cortex_manifest');
    expect(manifest.memories).toBe(1 + doc.chunks + 1);
    expect(manifest.sources.map((x: Json) => x.source).sort()).toEqual(['handbook.md', 'ops notes', 'slack']);
    const status = await call(client, 'cortex_status');
    expect(status.fullText.healthy).toBe(true);

    const byId = await call(client, 'cortex_forget', { ids: [fact.ids[0]] });
    expect(byId.forgotten).toBe(1);
    expect((await call(client, 'cortex_recall', { query: 'staging Frankfurt' })).memories).toEqual([]);
    const byQuery = await call(client, 'cortex_forget', { query: 'PostgreSQL billing' });
    expect(byQuery.memories.map((m: Json) => m.id)).toEqual(conversation.ids);
    await client.close();
  });

  it("never reads or forgets another user's memory", async () => {
    const ada = await connect(s.baseUrl, readWrite);
    const secret = await call(ada, 'cortex_remember', { text: 'The vault combination is 31-41-59.' });
    const bob = await connect(s.baseUrl, other);
    expect((await call(bob, 'cortex_recall', { query: 'vault combination' })).memories).toEqual([]);
    expect((await call(bob, 'cortex_ask', { question: 'What is the vault combination?' })).citations).toEqual(
      [],
    );
    expect((await call(bob, 'cortex_forget', { ids: secret.ids })).forgotten).toBe(0);
    expect((await call(bob, 'cortex_forget', { query: 'vault combination' })).forgotten).toBe(0);
    const still = await call(ada, 'cortex_recall', { query: 'vault combination' });
    expect(still.memories.map((m: Json) => m.id)).toEqual(secret.ids);
    await ada.close();
    await bob.close();
  });

  it('lists connectable sources from the registry and links only to offices the caller is in', async () => {
    const profile = (await (
      await fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${adaApi}` } })
    ).json()) as Json;
    const added = await fetch(`${s.baseUrl}/api/v1/offices/acme/members`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: profile.account.email, role: 'operator' }),
    });
    expect(added.status).toBeLessThan(300);
    const client = await connect(s.baseUrl, readWrite);
    const { sources } = await call(client, 'cortex_connectable_sources');
    const ids = sources.map((x: Json) => x.integrationId);
    expect(ids).toEqual(expect.arrayContaining(['notion', 'google-workspace']));
    expect(ids).not.toContain('slack');
    const link = await call(client, 'cortex_connect_link', { integrationId: 'notion', officeId: 'acme' });
    expect(link.connectUrl).toBe(`${s.baseUrl}/connect/notion?office=acme`);
    const elsewhere = (await client.callTool({
      name: 'cortex_connect_link',
      arguments: { integrationId: 'notion', officeId: 'globex' },
    })) as Json;
    expect(elsewhere.isError).toBe(true);
    const notSource = (await client.callTool({
      name: 'cortex_connect_link',
      arguments: { integrationId: 'slack', officeId: 'acme' },
    })) as Json;
    expect(notSource.isError).toBe(true);
    await client.close();
  });

  it('refuses a revoked token at once with 401 invalid_token', async () => {
    const browser = await oauth.person();
    const t = await oauth.tokens({ scope: 'memory:read', resource: `${s.baseUrl}/mcp` }, browser);
    const ok = await rawCall(s.baseUrl, toolCall('cortex_status'), {
      authorization: `Bearer ${t.access_token}`,
    });
    expect(ok.status).toBe(200);
    await oauth.revoke(t.access_token);
    const res = await rawCall(s.baseUrl, toolCall('cortex_status'), {
      authorization: `Bearer ${t.access_token}`,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('lets the SDK client sign in by itself (discovery, registration, PKCE) and step up to memory:write', async () => {
    const provider = new SdkOAuthProvider();
    const transport = new StreamableHTTPClientTransport(new URL(`${s.baseUrl}/mcp`), {
      authProvider: provider,
    });
    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(transport);
    const browser = new HttpBrowser(s.baseUrl);
    await browser.signUp(newPerson('Sdk'));
    /** Approves the authorization request the SDK last "opened", and hands it the redirect. */
    const approve = async () => {
      const url = provider.redirects.at(-1);
      if (!url) throw new Error('the SDK did not ask for authorization');
      const step = await browser.follow(url.href);
      const uid = /action="\/oauth\/interaction\/([^/"]+)\/confirm"/.exec(await step.response.text())?.[1];
      const done = uid ? await browser.submit(`/oauth/interaction/${uid}/confirm`, {}) : step;
      await transport.finishAuth(new URL(done.url).searchParams);
      return url;
    };

    await expect(
      client.callTool({ name: 'cortex_recall', arguments: { query: 'x' } }),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const first = await approve();
    expect(first.searchParams.get('scope')?.split(' ')).toContain('memory:read');
    expect(first.searchParams.get('scope')?.split(' ')).not.toContain('memory:write');
    expect(first.searchParams.get('code_challenge_method')).toBe('S256');
    expect(first.searchParams.get('resource')).toBe(`${s.baseUrl}/mcp`);
    expect(await call(client, 'cortex_recall', { query: 'x' })).toEqual({ memories: [] });

    // memory:write is missing: the server answers 403 insufficient_scope and the SDK asks again.
    await expect(
      client.callTool({ name: 'cortex_remember', arguments: { text: 'Stepped up.' } }),
    ).rejects.toThrow();
    const second = await approve();
    expect(second.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['memory:read', 'memory:write']),
    );
    const stored = await call(client, 'cortex_remember', { text: 'Stepped up.' });
    expect(stored.ids).toHaveLength(1);
    await client.close();
  });

  it('refuses bodies that are not JSON, too large or malformed, and answers GET with 405', async () => {
    const post = (body: string, type: string) =>
      fetch(`${s.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json, text/event-stream' },
        body,
      });
    const form = await post('a=b', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(form.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await post('hello', 'text/plain')).status).toBe(415);
    const malformed = await post('{"jsonrpc":', 'application/json');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).code).toBe('malformed_body');
    const huge = toolCall('search_docs', { query: 'x'.repeat(2 * 1024 * 1024) });
    expect((await post(JSON.stringify(huge), 'application/json')).status).toBe(413);
    const get = await fetch(`${s.baseUrl}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    // A batch hiding a memory call among public ones still needs the token.
    const batch = await rawCall(s.baseUrl, [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      toolCall('cortex_status'),
    ] as never);
    expect(batch.status).toBe(401);
  });

  it('serves 2025-era clients statelessly and validates tool arguments', async () => {
    const init = await rawCall(s.baseUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    });
    expect(init.status).toBe(200);
    const body = await messageOf(init);
    expect(body.result.serverInfo.name).toBe('colony');
    const bad = await rawCall(s.baseUrl, toolCall('cortex_recall', { query: '' }), {
      authorization: `Bearer ${readWrite}`,
    });
    const answer = await messageOf(bad);
    expect(answer.result?.isError ?? answer.error).toBeTruthy();
  });
});
