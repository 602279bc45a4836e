// Many MCP calls in flight at once with two accounts' tokens, all through one server process: each
// call sees only its own account's memories and stores only into its own account, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp, type Json, messageOf, rawCall, toolCall } from '../support/mcp-client.ts';
import { OAuthTestClient } from '../support/oauth-client.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const ROUNDS = 40;

describe.each(storageTargets)('MCP calls in flight together on $name', (target) => {
  let s: ListeningServer;
  const tokens: Record<'ada' | 'bob', string> = { ada: '', bob: '' };
  const secrets: Record<'ada' | 'bob', string> = { ada: '', bob: '' };

  /** One raw call as `who` (or with no token), its HTTP status and its JSON-RPC message. */
  async function send(who: 'ada' | 'bob' | null, name: string, args: Json = {}) {
    const res = await rawCall(
      s.baseUrl,
      toolCall(name, args),
      who ? { authorization: `Bearer ${tokens[who]}` } : {},
    );
    return { who, name, status: res.status, message: res.status === 200 ? await messageOf(res) : {} };
  }

  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_API_RATE_LIMIT: '100000',
      COLONY_SIGNIN_RATE_LIMIT: '10000',
    });
    const oauth = await OAuthTestClient.register(s.baseUrl);
    for (const who of ['ada', 'bob'] as const) {
      const person = await oauth.person(who);
      const scope = { scope: 'memory:read memory:write', resource: `${s.baseUrl}/mcp` };
      tokens[who] = (await oauth.tokens(scope, person)).access_token;
      const stored = await send(who, 'cortex_remember', { text: `The codeword of ${who} is secret-${who}.` });
      secrets[who] = stored.message.result.structuredContent.ids[0];
    }
  });
  afterAll(() => s.close());

  it("answers every interleaved call, all with the same JSON-RPC id, with only its caller's memories", async () => {
    // Reads, writes, public calls and refused calls, in flight at once and finishing in any order.
    const calls = Array.from({ length: ROUNDS }, (_, i) => [
      send('ada', 'cortex_recall', { query: 'codeword secret', limit: 50 }),
      send('bob', 'cortex_recall', { query: 'codeword secret', limit: 50 }),
      send(i % 2 ? 'ada' : 'bob', 'cortex_remember', { text: `Note ${i} about the codeword.` }),
      send(null, 'get_pricing'),
      send(null, 'cortex_recall', { query: 'codeword' }),
    ]).flat();
    const answers = await Promise.all(calls);

    for (const a of answers) {
      if (a.who === null && a.name === 'cortex_recall') {
        expect(a.status).toBe(401);
        continue;
      }
      expect(a.status).toBe(200);
      expect(a.message.id).toBe(1);
      expect(a.message.result.isError).toBeFalsy();
      if (a.name !== 'cortex_recall' || a.who === null) continue;
      const ids = a.message.result.structuredContent.memories.map((m: Json) => m.id);
      expect(ids).toContain(secrets[a.who]);
      expect(ids).not.toContain(secrets[a.who === 'ada' ? 'bob' : 'ada']);
    }
    // Every note went to the account whose token wrote it.
    const remembered = answers.filter((a) => a.name === 'cortex_remember');
    for (const who of ['ada', 'bob'] as const) {
      const manifest = (await send(who, 'cortex_manifest')).message.result.structuredContent;
      expect(manifest.memories).toBe(1 + remembered.filter((a) => a.who === who).length);
    }
  });

  it('keeps two SDK clients with different tokens apart while their calls overlap', async () => {
    const [ada, bob] = await Promise.all([
      connectMcp(s.baseUrl, tokens.ada),
      connectMcp(s.baseUrl, tokens.bob),
    ]);
    const recall = (client: typeof ada) => callTool(client, 'cortex_recall', { query: 'secret', limit: 50 });
    const rounds = await Promise.all(
      Array.from({ length: 20 }, () => Promise.all([recall(ada), recall(bob)])),
    );
    for (const [forAda, forBob] of rounds) {
      expect(forAda.memories.map((m: Json) => m.id)).toEqual([secrets.ada]);
      expect(forBob.memories.map((m: Json) => m.id)).toEqual([secrets.bob]);
    }
    await Promise.all([ada.close(), bob.close()]);
  });
});
