// The MCP endpoint end to end with the official SDK client, tokens from a real OAuth flow
// (openid-client), step-up challenges at the HTTP level and memory isolation, on both databases.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
type Json = Record<string, any>;

async function connect(baseUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'colony-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    ...(token ? { authProvider: { token: async () => token } } : {}),
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Json = {}): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  return result.structuredContent as Json;
}

/** A raw 2025-era JSON-RPC POST, as an older client or a curl user sends it. */
function rawCall(baseUrl: string, body: Json, headers: Record<string, string> = {}, path = '/mcp') {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE event. */
async function messageOf(res: Response): Promise<Json> {
  const text = await res.text();
  const data = /^data: (.+)$/m.exec(text)?.[1];
  return JSON.parse(data ?? text) as Json;
}

const toolCall = (name: string, args: Json = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe.each(storageTargets)('MCP server on $name', (target) => {
  let s: ListeningServer;
  let oauth: OAuthTestClient;
  let readWrite: string;
  let readOnly: string;
  let other: string;

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_API_RATE_LIMIT: '10000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    oauth = await OAuthTestClient.register(s.baseUrl);
    const ada = await oauth.person('Ada');
    const resource = `${s.baseUrl}/mcp`;
    readWrite = (await oauth.tokens({ scope: 'memory:read memory:write', resource }, ada)).access_token;
    readOnly = (await oauth.tokens({ scope: 'memory:read', resource }, ada)).access_token;
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

  it('answers a memory call without a token with 401 and the MCP resource metadata challenge', async () => {
    const res = await rawCall(s.baseUrl, toolCall('cortex_recall', { query: 'anything' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    const client = await connect(s.baseUrl);
    await expect(client.callTool({ name: 'cortex_recall', arguments: { query: 'x' } })).rejects.toThrow();
  });

  it('never accepts a token in the query string', async () => {
    const res = await rawCall(s.baseUrl, toolCall('get_pricing'), {}, `/mcp?access_token=${readWrite}`);
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
