// The official MCP SDK client against a test server's /mcp, and tool calls read as structured content.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { OAuthTestClient } from './oauth-client.ts';

// biome-ignore lint/suspicious/noExplicitAny: tool results are asserted field by field
export type Json = Record<string, any>;

export async function connectMcp(baseUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'colony-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    ...(token ? { authProvider: { token: async () => token } } : {}),
  });
  await client.connect(transport);
  return client;
}

/** A tool's structured result; a tool error fails the test with the tool's own message. */
export async function callTool(client: Client, name: string, args: Json = {}): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  return result.structuredContent as Json;
}

/** A raw 2025-era JSON-RPC POST, as an older client or a curl user sends it. */
export function rawCall(baseUrl: string, body: Json, headers: Record<string, string> = {}, path = '/mcp') {
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
export async function messageOf(res: Response): Promise<Json> {
  const text = await res.text();
  const data = /^data: (.+)$/m.exec(text)?.[1];
  return JSON.parse(data ?? text) as Json;
}

export const toolCall = (name: string, args: Json = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** A new person's client with memory:read and memory:write, through a real OAuth flow. */
export async function memoryClient(baseUrl: string): Promise<Client> {
  const oauth = await OAuthTestClient.register(baseUrl);
  const person = await oauth.person('Ada');
  const { access_token } = await oauth.tokens(
    { scope: 'memory:read memory:write', resource: `${baseUrl}/mcp` },
    person,
  );
  return connectMcp(baseUrl, access_token);
}
